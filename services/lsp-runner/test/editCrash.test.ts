// A runner killed with SIGKILL in the middle of a 200-file apply_workspace_edit (content changes, a
// created file, a rename) at random moments: after the restart every edit is all-old or all-new,
// and no staged, backup or journal file is left anywhere in the workspace. The faults tier kills 20
// times; npm test kills 3 times.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createClient, type ServiceClient } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { isFaultsTier } from "@lspmesh/test-kit";
import { afterEach, expect, test } from "vitest";
import { failure } from "./support/calls.js";
import { startFixtureRunner, ws } from "./support/fixtureRunner.js";

const FILES = 200;
const KILLS = 20;
const script = fileURLToPath(new URL("./support/childRunner.mjs", import.meta.url));
const cleanup: Array<() => unknown> = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const name = (index: number) => `src/f${String(index).padStart(3, "0")}.ts`;
const line = (round: number) => `export const value = "round-${round}";\n`;

interface ChildRunner {
  client: ServiceClient<typeof Runner.method>;
  kill(): Promise<void>;
}

async function startChild(dir: string): Promise<ChildRunner> {
  const child: ChildProcess = spawn(process.execPath, [script, dir], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = once(child, "exit");
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  cleanup.push(kill);
  const [address] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  const client = createClient(Runner, (JSON.parse(address) as { address: string }).address);
  cleanup.push(() => client.close());
  return { client, kill };
}

/** Round r's edit: every file's line becomes round r, round-r.ts is created, moving-(r-1) becomes moving-r. */
function editOf(round: number) {
  const whole = { start: { line: 1, column: 1 }, end: { line: 2, column: 1 } };
  return {
    files: Array.from({ length: FILES }, (_, index) => ({
      file: name(index),
      edits: [{ range: whole, newText: line(round) }],
    })),
    operations: [
      { kind: 1 /* create */, file: `src/created/round-${round}.ts`, newFile: "" },
      { kind: 2 /* rename */, file: `src/moving-${round - 1}.ts`, newFile: `src/moving-${round}.ts` },
    ],
  };
}

/** Which round the workspace shows, or a description of the mix it holds. */
function roundOnDisk(dir: string, previous: number, next: number): number | string {
  const contents = new Set(Array.from({ length: FILES }, (_, index) => readFileSync(join(dir, name(index)), "utf8")));
  const created = existsSync(join(dir, `src/created/round-${next}.ts`));
  const moved = existsSync(join(dir, `src/moving-${next}.ts`)) && !existsSync(join(dir, `src/moving-${previous}.ts`));
  if (contents.size === 1 && contents.has(line(previous)) && !created && !moved) return previous;
  if (contents.size === 1 && contents.has(line(next)) && created && moved) return next;
  return `${contents.size} distinct contents, created ${created}, moved ${moved}`;
}

/** Every file the runner may leave behind: staged, backup, journal. */
function leftovers(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((path) => /\.lspmesh-/.test(path));
}

// A long fault case (the runner killed again and again mid-edit): npm run test:faults.
test.runIf(isFaultsTier())(
  `SIGKILL during a ${FILES}-file edit, ${KILLS} times: every edit all-old or all-new after restart, nothing left behind`,
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "lspmesh-edit-crash-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, "src"));
    for (let index = 0; index < FILES; index++) writeFileSync(join(dir, name(index)), line(0));
    writeFileSync(join(dir, "src/moving-0.ts"), "export {};\n");

    // Three edits to completion: how long an apply takes here (the median, ms), so kills fall within one.
    let runner = await startChild(dir);
    const durations: number[] = [];
    for (let round = 1; round <= 3; round++) {
      const started = performance.now();
      await runner.client.applyWorkspaceEdit({ workspace: ws, edit: editOf(round) });
      durations.push(performance.now() - started);
      expect(roundOnDisk(dir, round - 1, round)).toBe(round);
    }
    const applyMs = durations.sort((a, b) => a - b)[1] ?? 0;

    let round = 3;
    const outcomes: string[] = [];
    let interrupted = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      const next = round + 1;
      // Spread over the apply (stratified), at a random moment within each share.
      const delayMs = (applyMs * 0.9 * (kill + Math.random())) / KILLS;
      const call = runner.client.applyWorkspaceEdit({ workspace: ws, edit: editOf(next) }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await runner.kill();
      await call;
      // Seen before any recovery: a mix or staged files mean the kill fell inside the edit.
      if (typeof roundOnDisk(dir, round, next) === "string" || leftovers(dir).length > 0) interrupted++;

      runner = await startChild(dir);
      const shown = roundOnDisk(dir, round, next);
      outcomes.push(`kill ${kill} after ${delayMs.toFixed(1)} ms: ${shown}`);
      expect(typeof shown, outcomes.join("\n")).toBe("number");
      expect(leftovers(dir), outcomes.join("\n")).toEqual([]);
      round = shown as number;
    }
    // The kills must have hit edits under way, or the test proves nothing.
    expect(interrupted, `apply took ${applyMs.toFixed(0)} ms\n${outcomes.join("\n")}`).toBeGreaterThan(0);

    // The workspace still takes edits after all that.
    await runner.client.applyWorkspaceEdit({ workspace: ws, edit: editOf(round + 1) });
    expect(roundOnDisk(dir, round, round + 1)).toBe(round + 1);
  },
  300_000,
);

test("a journal planted in the workspace that names files outside it is left alone: nothing outside is moved or removed", async () => {
  await using env = await startFixtureRunner({ fixture: "typescript-basic", symbolIndex: { enabled: false } });
  const outside = env.outside!;
  const id = "0123456789abcdef";
  const secret = join(outside, "secret.ts");
  writeFileSync(join(outside, `.lspmesh-${id}-0.old`), "planted\n");
  symlinkSync(outside, join(env.dir, "out"));
  const planted = [
    // '..' out of the workspace, and a folder inside that is a link out of it.
    { kind: "delete", path: "../outside/secret.ts" },
    { kind: "write", path: "out/secret.ts" },
  ];
  for (const [index, entry] of planted.entries()) {
    const journal = join(env.dir, `.lspmesh-edit-${id.slice(0, 15)}${index}.journal`);
    writeFileSync(
      journal,
      JSON.stringify({
        version: 1,
        id: `${id.slice(0, 15)}${index}`,
        state: "prepared",
        folders: [],
        entries: [entry],
      }),
    );
  }
  // Any call that opens the workspace recovers its interrupted edits first.
  await env.client.documentSymbols({ workspace: ws, file: "src/greeter.ts" });
  expect(readFileSync(secret, "utf8")).toBe("export const secret = 42;\n");
  expect(readdirSync(outside).sort()).toEqual([`.lspmesh-${id}-0.old`, "secret.ts"]);
  expect(readdirSync(env.dir).filter((n) => n.endsWith(".journal"))).toHaveLength(2);
});

test("an edit that fails halfway (a file cannot be replaced) is rolled back: every file as before, nothing left behind", async (context) => {
  await using env = await startFixtureRunner({ fixture: "typescript-basic", symbolIndex: { enabled: false } });
  const before = env.snapshot();
  // An immutable file (chattr +i: even root cannot replace it) fails the edit after the first file
  // was already replaced.
  const locked = join(env.dir, "src/locked.ts");
  writeFileSync(locked, "export const a = 1;\n");
  const chattr = spawnSync("chattr", ["+i", locked], { encoding: "utf8" });
  if (chattr.status !== 0)
    context.skip(`chattr +i is not possible here (${chattr.stderr.trim()}): needs root on ext4/xfs`);
  // Disposed before env (declared after it), so the folder can be removed.
  using _unlock = { [Symbol.dispose]: () => spawnSync("chattr", ["-i", locked]) };
  const whole = { start: { line: 1, column: 1 }, end: { line: 2, column: 1 } };
  const error = await failure(
    env.client.applyWorkspaceEdit({
      workspace: ws,
      edit: {
        files: [
          { file: "src/greeter.ts", edits: [{ range: whole, newText: "// changed\n" }] },
          { file: "src/locked.ts", edits: [{ range: whole, newText: "// changed\n" }] },
        ],
        operations: [{ kind: 1, file: "src/new/created.ts", newFile: "" }],
      },
    }),
  );
  expect(error.details).toMatch(/^the workspace could not be written \(EPERM\); no file was changed/);
  const after = env.snapshot();
  expect(after["src/locked.ts"]).toBe("export const a = 1;\n");
  delete after["src/locked.ts"];
  expect(after).toEqual(before);
  expect(existsSync(join(env.dir, "src/new"))).toBe(false);
  expect(leftovers(env.dir)).toEqual([]);
});
