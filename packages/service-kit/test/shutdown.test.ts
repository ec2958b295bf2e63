// closeOnSignals with real processes: a command started by `npx` stops when npm is gone (npm does
// not pass SIGTERM on), and one started otherwise keeps running as an orphan (nohup, daemons).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { afterEach, expect, test } from "vitest";

const SERVICE_KIT = new URL("../dist/index.js", import.meta.url).href;

// The launcher starts the service and prints its pid; the service prints "closed" from its close().
const LAUNCHER = `
const { spawn } = require("node:child_process");
const child = spawn(process.execPath, ["--input-type=module", "-e", process.env.SERVICE], { stdio: ["ignore", "inherit", "inherit"] });
console.log("service " + child.pid);
setInterval(() => {}, 1000);
`;
const SERVICE = `
import { closeOnSignals } from ${JSON.stringify(SERVICE_KIT)};
import { appendFileSync } from "node:fs";
closeOnSignals(async () => appendFileSync(1, "closed\\n"), { log: () => {} });
appendFileSync(1, "watching\\n");
setInterval(() => {}, 1000);
`;

const started: number[] = [];
let launcher: ChildProcess | undefined;

afterEach(() => {
  launcher?.kill("SIGKILL");
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
});

/** Starts the launcher with `env`, kills it, and says whether its service exited within `waitMs` (and what it printed). */
async function orphanedService(
  env: Record<string, string>,
  waitMs: number,
): Promise<{ exited: boolean; output: string }> {
  launcher = spawn(process.execPath, ["-e", LAUNCHER], {
    env: { PATH: process.env.PATH ?? "", SERVICE, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  launcher.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  // Killed only once the service is set up (it noted its parent), however slowly it loads.
  while (!/service \d+\n/.test(output) || !output.includes("watching\n")) await once(launcher.stdout!, "data");
  const pid = Number(/service (\d+)/.exec(output)![1]);
  started.push(pid);
  launcher.kill("SIGKILL");
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline && isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
  return { exited: !isAlive(pid), output };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("started by npx, a service closes and exits once npm is gone", async () => {
  const { exited, output } = await orphanedService({ npm_command: "exec" }, 10_000);
  expect(exited).toBe(true);
  expect(output).toContain("closed");
});

test("started otherwise, an orphaned service keeps running", async () => {
  const { exited } = await orphanedService({}, 1_800);
  expect(exited).toBe(false);
});
