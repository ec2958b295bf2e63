// A question asked a second time is answered from memory although the first pass opened one
// document after another (each moving the session's content epoch): the runner asks the questions
// again in the background under the last epoch. Never stale: a file changed between the passes
// is in the second answers; closing the session stops the re-asking. Real
// typescript-language-server, real gRPC; counts from the runner's /metrics.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isFaultsTier } from "@lspmesh/test-kit";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

type Question = [file: string, name: string, line: number];
/** Positions in four files of typescript-ops: each first ask in a file opens it. */
const QUESTIONS: Question[] = [
  ["src/main.ts", "Square", 4],
  ["src/main.ts", "shout", 6],
  ["src/geometry.ts", "measure", 17],
  ["src/text/shout.ts", "message", 3],
  ["src/future.ts", "later", 3],
  ["src/geometry.ts", "area", 22],
];

let h: FixtureRunner;
beforeEach(async () => {
  h = await startFixtureRunner({
    fixture: "typescript-ops",
    watchDebounceMs: 50,
    metricsListen: "127.0.0.1:0",
    symbolIndex: { enabled: false },
  });
});
afterEach(() => h?.close());

async function metric(name: string, result: string): Promise<number> {
  const text = await (await fetch(`http://${h.runner.metricsAddress}/metrics`)).text();
  return Number(text.match(new RegExp(`${name}\\{result="${result}"\\} (\\d+)`))?.[1] ?? 0);
}
const cache = (result: "hit" | "shared" | "miss") => metric("lspmesh_runner_answer_cache_total", result);
const warming = (result: "asked" | "stored" | "dropped") => metric("lspmesh_runner_answer_warming_total", result);

/** Hover, definition and references of every question: what each answered. */
async function pass(): Promise<string[]> {
  const answers: string[] = [];
  for (const [file, name, line] of QUESTIONS) {
    const at = symbol(file, name, line);
    const hover = await h.client.hover({ workspace: ws, at });
    const definition = await h.client.findDefinition({ workspace: ws, at });
    const references = await h.client.findReferences({ workspace: ws, at, includeDeclaration: true });
    answers.push(
      hover.contents,
      definition.locations.map((l) => `${l.file}:${l.range?.start?.line}`).join(","),
      references.locations.map((l) => `${l.file}:${l.range?.start?.line}`).join(","),
    );
  }
  return answers;
}

/** Until the re-asking is over: at least `stored` answers kept, every re-ask ended and nothing new for a while. */
async function warmingDone(stored = 0): Promise<void> {
  await vi.waitFor(async () => expect(await warming("stored")).toBeGreaterThanOrEqual(stored), {
    timeout: 20_000,
    interval: 100,
  });
  let last = -1;
  await vi.waitFor(
    async () => {
      const ended = (await warming("stored")) + (await warming("dropped"));
      const asked = await warming("asked");
      const settled = ended === last && asked === ended;
      last = ended;
      expect(settled).toBe(true);
    },
    { timeout: 20_000, interval: 300 },
  );
}

/** Asks until the server is ready (the first answers come from a loading project and are not kept). */
async function untilReady(): Promise<void> {
  await vi.waitFor(
    async () => {
      await h.client.hover({ workspace: ws, at: symbol("src/main.ts", "Square", 4) });
      expect(h.runner.sessions.statuses().map((status) => status.state)).toEqual(["ready"]);
    },
    { timeout: 30_000, interval: 200 },
  );
}

// How much is answered from memory (a performance property): in `npm run test:faults`.
test.runIf(isFaultsTier())(
  "the second pass over several files is answered from memory, with the server's answers",
  async () => {
    await untilReady();
    const first = await pass();
    // Questions answered before the last document was opened are asked again (the ones after it need not be).
    await warmingDone(QUESTIONS.length);
    const [hit, miss] = [await cache("hit"), await cache("miss")];
    expect(await pass()).toEqual(first);
    expect((await cache("hit")) - hit).toBe(QUESTIONS.length * 3);
    expect((await cache("miss")) - miss).toBe(0);
    expect(first.some((answer) => answer.includes("shout(message: string): string"))).toBe(true);
  },
);

test("a file changed between the passes is in the second answers", async () => {
  await untilReady();
  const first = await pass();
  const shout = join(h.dir, "src/text/shout.ts");
  writeFileSync(
    shout,
    readFileSync(shout, "utf8").replace("): string {", "): number {").replace("return `", "return 1; `"),
  );
  const second = await pass();
  const shoutHover = second[QUESTIONS.findIndex(([file, name]) => file === "src/main.ts" && name === "shout") * 3];
  expect(shoutHover).toContain("shout(message: string): number");
  expect(second).not.toEqual(first);
  // A third pass (from memory or not) says the same as the second.
  expect(await pass()).toEqual(second);
});

test("closing the session stops the re-asking", async () => {
  await untilReady();
  await pass();
  // The last document opened moved the epoch: re-asking starts once the session is idle.
  expect(await h.runner.sessions.stopWorkspace(ws.tenant, ws.workspace, "idle")).toBe(1);
  const asked = await warming("asked");
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await warming("asked")).toBe(asked);
  expect(await warming("stored")).toBeLessThanOrEqual(asked);
});
