// Sessions stopped to save resources, against real typescript-language-server processes: 8
// workspaces (50 in test:faults) on one runner whose servers may use little memory together (least recently used
// sessions are stopped), and a session left idle; both come back transparently on their next
// request, and nothing is left running once the runner stops.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isFaultsTier, waitFor } from "@lspmesh/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type LifecycleEvent, VolumeWorkspaceLocator } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner } from "./support/fixtureRunner.js";
import { groupsGone, processesInTheseGroups, processesWorkingIn } from "./support/processes.js";

/** 6 in `npm test` (eviction already holds well past the ~2-session budget), 50 in test:faults. */
const WORKSPACES = isFaultsTier() ? 50 : 6;
/**
 * About two sessions: each is ~140 MiB resident (typescript-language-server and tsserver) on these
 * workspaces, which skip the standard library (noLib) so that the cold starts stay quick.
 */
const MEMORY_BUDGET_BYTES = 300 * 1024 * 1024;
/** Requests under way at once. */
const CONCURRENCY = 2;
/** Idle timeout of the second test, ms: short, so that the test waits a fraction of a second. */
const IDLE_TIMEOUT_MS = 300;
const tenant = "acme";
const names = Array.from({ length: WORKSPACES }, (_, i) => `w${String(i + 1).padStart(2, "0")}`);

let root: string;
let env: FixtureRunner;
let runner: FixtureRunner["runner"];
let client: FixtureRunner["client"];
const events: LifecycleEvent[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-memory-"));
  for (const [index, name] of names.entries()) {
    const dir = join(root, tenant, name, "src");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(root, tenant, name, "tsconfig.json"),
      '{ "compilerOptions": { "strict": true, "noEmit": true, "noLib": true, "types": [] } }\n',
    );
    writeFileSync(join(dir, "values.ts"), `export const base${index} = ${index};\n`);
    writeFileSync(
      join(dir, "main.ts"),
      `import { base${index} } from "./values";\nexport const twice = base${index} * 2;\n`,
    );
  }
  env = await startFixtureRunner({
    locator: new VolumeWorkspaceLocator(root),
    sessionPolicy: { memoryBudgetBytes: MEMORY_BUDGET_BYTES, sweepIntervalMs: 200, evictionGraceMs: 300 },
    onLifecycleEvent: (event) => events.push(event),
  });
  ({ runner, client } = env);
});

afterAll(async () => {
  await env?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Definition of base<i> used on line 2 of main.ts: line 1, column 14 of values.ts. */
async function definitionIn(index: number): Promise<void> {
  const answer = await client.findDefinition({
    workspace: { tenant, workspace: names[index]! },
    at: {
      file: "src/main.ts",
      target: { case: "symbol", value: { name: `base${index}`, lineHint: 2, occurrence: 0 } },
    },
  });
  expect(answer.locations.map((l) => [l.file, l.range?.start?.line, l.range?.start?.column])).toEqual([
    ["src/values.ts", 1, 14],
  ]);
}

test(`${WORKSPACES} workspaces under a memory budget: evicted, restarted transparently, nothing left behind`, async () => {
  let running = 0;
  let peak = 0;
  const track = (event: LifecycleEvent) => {
    if (event.kind === "started") peak = Math.max(peak, ++running);
    else running--;
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < WORKSPACES) await definitionIn(next++);
    }),
  );
  for (const event of events) track(event);

  const stopped = events.filter((e) => e.kind === "stopped");
  expect(stopped.every((e) => e.reason === "memory")).toBe(true);
  expect(stopped.length).toBeGreaterThanOrEqual(WORKSPACES - 5);
  expect(events.filter((e) => e.kind === "failed")).toEqual([]);
  // Sessions are stopped within a sweep or two of going over: never more than a handful run at once.
  expect(peak).toBeLessThanOrEqual(8);

  // The first workspace was evicted long ago; asking it again starts a new server, answering the same.
  expect(stopped.some((e) => e.workspace === "w01")).toBe(true);
  await definitionIn(0);
  expect(events.filter((e) => e.kind === "started" && e.workspace === "w01")).toHaveLength(2);
  const status = await client.workspaceStatus({ workspace: { tenant, workspace: "w01" } });
  expect(status.languages.map((l) => [l.language, l.restarts, l.lastError])).toEqual([["typescript", 0, ""]]);

  const groups = events.flatMap((e) => (e.kind === "started" && e.pid !== undefined ? [e.pid] : []));
  expect(groups.length).toBe(WORKSPACES + 1);
  await runner.close();
  expect(await processesInTheseGroups(groups)).toEqual([]);
  expect(await processesWorkingIn(root)).toEqual([]);
}, 300_000);

test("a session unused for the idle timeout is stopped, and starts again on its next request", async () => {
  const idleEvents: LifecycleEvent[] = [];
  await using idle = await startFixtureRunner({
    locator: new VolumeWorkspaceLocator(root),
    sessionPolicy: { idleTimeoutMs: IDLE_TIMEOUT_MS, sweepIntervalMs: 50 },
    onLifecycleEvent: (event) => idleEvents.push(event),
  });
  const { runner: idleRunner, client: idleClient } = idle;
  const definition = (index: number) =>
    idleClient.findDefinition({
      workspace: { tenant, workspace: names[index]! },
      at: {
        file: "src/main.ts",
        target: { case: "symbol", value: { name: `base${index}`, lineHint: 2, occurrence: 0 } },
      },
    });
  expect((await definition(2)).locations).toHaveLength(1);
  // The started event carries the pid: asking the pool afterwards may already find the session idle-stopped.
  const pid = idleEvents.find((e) => e.kind === "started")?.pid;
  expect(pid).toBeTypeOf("number");
  const stopped = await waitFor("the idle session to be stopped", () => idleEvents.find((e) => e.kind === "stopped"));
  expect(stopped).toMatchObject({ workspace: "w03", reason: "idle", pid });
  await groupsGone([pid!]);
  expect(await idleRunner.sessions.pids()).toEqual([]);

  expect((await definition(2)).locations.map((l) => l.file)).toEqual(["src/values.ts"]);
  expect(idleEvents.filter((e) => e.kind === "started")).toHaveLength(2);
});
