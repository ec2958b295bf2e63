// A language server that loses part of itself: SIGKILL the tsserver under
// typescript-language-server (what the kernel's OOM killer does on big repositories). The wrapper
// lives on and would answer every request "nothing"; the runner notices the broken tree, restarts
// the server, and no answer in between claims `ready` with an empty result. The wrapper killed
// itself is the plain crash. Both under load: four callers hovering all along.
import { setTimeout as sleep } from "node:timers/promises";
import type { ServiceError } from "@lspmesh/grpc";
import { ServerState } from "@lspmesh/proto";
import { commandLine, isFaultsTier, waitFor } from "@lspmesh/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LanguageRegistry, typescriptLanguage } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";
import { groupsGone, processesInTheseGroups } from "./support/processes.js";

let env: FixtureRunner;
const groups = new Set<number>();

const hoverMain = () =>
  env.client.hover({
    workspace: ws,
    at: { file: "src/main.ts", target: { case: "symbol", value: { name: "greeter", lineHint: 3, occurrence: 0 } } },
  });

beforeAll(async () => {
  env = await startFixtureRunner({
    fixture: "typescript-basic",
    languages: new LanguageRegistry([typescriptLanguage()]),
    onLifecycleEvent: (event) => {
      if (event.pid !== undefined) groups.add(event.pid);
    },
  });
});

afterAll(async () => {
  await env?.close();
  await groupsGone(groups);
});

/** Concurrent callers hovering in a loop (the load), each recording what it saw. */
function hoverLoad(callers: number, stop: AbortSignal) {
  const seen = { answers: 0, readyAndEmpty: 0, otherErrors: [] as string[] };
  const loops = Array.from({ length: callers }, async () => {
    while (!stop.aborted) {
      const answer = await hoverMain().catch((error: ServiceError) => error);
      if ("contents" in answer) {
        seen.answers++;
        if (answer.status?.state === ServerState.READY && !answer.status.partial && answer.contents === "") {
          seen.readyAndEmpty++;
        }
      } else {
        const code = answer.metadata.get("lspmesh-error-code")[0];
        if (code !== "UNAVAILABLE") seen.otherErrors.push(`${code}: ${answer.details}`);
      }
      // Pacing, not waiting for anything: a steady load without a busy loop.
      await sleep(20);
    }
  });
  return { seen, done: Promise.all(loops) };
}

// Two servers killed under four callers' load: a long fault case, run by npm run test:faults.
test.runIf(isFaultsTier()).each([
  { victim: "tsserver (the wrapper lives on)", pick: (line: string) => line.includes("tsserver.js") },
  { victim: "the wrapper", pick: (line: string) => line.includes("typescript-language-server") },
])("$victim killed under load: never ready-and-empty, correct again within 10 s, nothing leaked", async ({ pick }) => {
  expect((await hoverMain()).contents).toContain("PoliteGreeter");
  const [group] = await env.runner.sessions.pids();
  const victim = (await processesInTheseGroups([group!])).find((pid) => pick(commandLine(pid)));
  expect(victim, "the process runs in the server's process group").toBeDefined();

  const stop = new AbortController();
  const load = hoverLoad(4, stop.signal);
  const violations: string[] = [];
  try {
    await waitFor("the load to be answered", () => load.seen.answers >= 4);
    process.kill(victim!, "SIGKILL");

    await waitFor(
      "hover to answer correctly again within 10 s, from a new server",
      async () => {
        const answer = await hoverMain().catch((error: ServiceError) => error);
        if (!("contents" in answer)) {
          // While the server restarts the call may fail with a code that says to retry.
          const code = answer.metadata.get("lspmesh-error-code")[0];
          if (code !== "UNAVAILABLE") violations.push(`${code}: ${answer.details}`);
          return false;
        }
        if (answer.status?.state === ServerState.READY && !answer.status.partial && answer.contents === "") {
          violations.push("an empty answer claimed ready and complete");
        }
        return answer.contents.includes("PoliteGreeter") && (await env.runner.sessions.pids())[0] !== group;
      },
      { timeoutMs: 10_000 },
    );
  } finally {
    stop.abort();
    await load.done;
  }
  expect(violations, "what the checking caller saw: ready-and-empty answers, codes other than UNAVAILABLE").toEqual([]);
  expect(load.seen.readyAndEmpty, "answers under load that claimed ready with nothing").toBe(0);
  expect(load.seen.otherErrors).toEqual([]);
  expect(load.seen.answers).toBeGreaterThan(0);
  // The broken server's group is gone entirely (wrapper and all).
  await groupsGone([group!], 10_000);
});
