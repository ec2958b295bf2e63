// A language server that loses part of itself: SIGKILL the tsserver under
// typescript-language-server (what the kernel's OOM killer does on big repositories). The wrapper
// lives on and would answer every request "nothing"; the runner notices the broken tree, restarts
// the server, and no answer in between claims `ready` with an empty result. The wrapper killed
// itself is the plain crash. Both under load: four callers hovering all along.
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type ServiceClient, type ServiceError } from "@lspmesh/grpc";
import { Runner, ServerState } from "@lspmesh/proto";
import { commandLine, fixtureWorkspace } from "@lspmesh/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  LanguageRegistry,
  type RunnerServer,
  SingleWorkspaceLocator,
  startRunnerServer,
  typescriptLanguage,
} from "./runnerInternals.js";
import { groupsGone, processesInTheseGroups } from "./support/processes.js";

const ws = { tenant: "local", workspace: "default" };
const fixture = fixtureWorkspace("typescript-basic");
let runner: RunnerServer;
let client: ServiceClient<typeof Runner.method>;
const groups = new Set<number>();

const hoverMain = () =>
  client.hover({
    workspace: ws,
    at: { file: "src/main.ts", target: { case: "symbol", value: { name: "greeter", lineHint: 3, occurrence: 0 } } },
  });

beforeAll(async () => {
  runner = await startRunnerServer({
    listen: "127.0.0.1:0",
    locator: new SingleWorkspaceLocator(fixture.dir, ws.tenant, ws.workspace),
    languages: new LanguageRegistry([typescriptLanguage()]),
    onLifecycleEvent: (event) => {
      if (event.pid !== undefined) groups.add(event.pid);
    },
  });
  client = createClient(Runner, runner.address);
});

afterAll(async () => {
  client?.close();
  await runner?.close();
  await groupsGone(groups);
  fixture[Symbol.dispose]();
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
      await sleep(20);
    }
  });
  return { seen, done: Promise.all(loops) };
}

test.each([
  { victim: "tsserver (the wrapper lives on)", pick: (line: string) => line.includes("tsserver.js") },
  { victim: "the wrapper", pick: (line: string) => line.includes("typescript-language-server") },
])("$victim killed under load: never ready-and-empty, correct again within 10 s, nothing leaked", async ({ pick }) => {
  expect((await hoverMain()).contents).toContain("PoliteGreeter");
  const [group] = await runner.sessions.pids();
  const victim = (await processesInTheseGroups([group!])).find((pid) => pick(commandLine(pid)));
  expect(victim, "the process runs in the server's process group").toBeDefined();

  const stop = new AbortController();
  const load = hoverLoad(4, stop.signal);
  await sleep(300);
  process.kill(victim!, "SIGKILL");

  const killedAt = Date.now();
  let recovered = false;
  while (Date.now() - killedAt < 10_000) {
    const answer = await hoverMain().catch((error: ServiceError) => error);
    if ("contents" in answer) {
      const readyAndEmpty =
        answer.status?.state === ServerState.READY && !answer.status.partial && answer.contents === "";
      expect(readyAndEmpty, "an empty answer claimed ready and complete").toBe(false);
      if (answer.contents.includes("PoliteGreeter") && (await runner.sessions.pids())[0] !== group) {
        recovered = true;
        break;
      }
    } else {
      // While the server restarts the call may fail with a code that says to retry.
      expect(answer.metadata.get("lspmesh-error-code")[0]).toBe("UNAVAILABLE");
    }
    await sleep(200);
  }
  stop.abort();
  await load.done;
  expect(recovered, "hover answers correctly again within 10 s, from a new server").toBe(true);
  expect(load.seen.readyAndEmpty, "answers under load that claimed ready with nothing").toBe(0);
  expect(load.seen.otherErrors).toEqual([]);
  expect(load.seen.answers).toBeGreaterThan(0);
  // The broken server's group is gone entirely (wrapper and all).
  await groupsGone([group!], 10_000);
});
