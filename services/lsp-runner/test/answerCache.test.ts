// Remembered and shared answers are never stale: files change between identical calls (on disk,
// seen by the watcher or only by the stat check, in the asked file and in files the server read
// itself) and every answer equals what the server says of the new content. Real
// typescript-language-server, real gRPC; the cache's counts are read from the runner's /metrics.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LanguageRegistry, typescriptLanguage } from "./runnerInternals.js";
import { symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

interface Harness extends FixtureRunner {
  /** The runner's answer-cache counters, from GET /metrics. */
  counts(): Promise<Counts>;
}

async function startHarness(watchWorkspaces: boolean, languages?: LanguageRegistry): Promise<Harness> {
  const env = await startFixtureRunner({
    fixture: "typescript-basic",
    ...(languages ? { languages } : {}),
    watchWorkspaces,
    watchDebounceMs: 50,
    metricsListen: "127.0.0.1:0",
    symbolIndex: { enabled: false },
  });
  return Object.assign(env, {
    async counts() {
      const text = await (await fetch(`http://${env.runner.metricsAddress}/metrics`)).text();
      const count = (result: string) =>
        Number(text.match(new RegExp(`lspmesh_runner_answer_cache_total\\{result="${result}"\\} (\\d+)`))?.[1] ?? 0);
      return { hit: count("hit"), shared: count("shared"), miss: count("miss") };
    },
  });
}

const hoverOf = async (h: Harness, file: string, name: string, line: number) =>
  (await h.client.hover({ workspace: ws, at: symbol(file, name, line) })).contents;
const definitionOf = async (h: Harness) =>
  (await h.client.findDefinition({ workspace: ws, at: symbol("src/main.ts", "makeGreeting", 4) })).locations.map(
    (l) => `${l.file}:${l.range?.start?.line}`,
  );
const referencesOf = async (h: Harness) =>
  (
    await h.client.findReferences({
      workspace: ws,
      at: symbol("src/greeter.ts", "makeGreeting", 14),
      includeDeclaration: true,
    })
  ).locations.map((l) => `${l.file}:${l.range?.start?.line}`);
type Counts = Record<"hit" | "shared" | "miss", number>;
const delta = (before: Counts, after: Counts): Counts => ({
  hit: after.hit - before.hit,
  shared: after.shared - before.shared,
  miss: after.miss - before.miss,
});

describe("with the workspace watcher", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(true);
  });
  afterAll(() => h?.close());

  test("a repeated read on unchanged files is answered from the cache", async () => {
    // The first answer comes from a starting server: not kept. Other questions from here on.
    expect(await hoverOf(h, "src/main.ts", "greeter", 3)).toContain("PoliteGreeter");
    expect(h.runner.sessions.statuses().map((status) => status.state)).toEqual(["ready"]);
    const before = await h.counts();
    expect(await hoverOf(h, "src/main.ts", "wave", 4)).toContain("const wave: string");
    expect(await hoverOf(h, "src/main.ts", "wave", 4)).toContain("const wave: string");
    expect(await definitionOf(h)).toEqual(["src/greeter.ts:14"]);
    expect(await definitionOf(h)).toEqual(["src/greeter.ts:14"]);
    expect(delta(before, await h.counts())).toEqual({ hit: 2, shared: 0, miss: 2 });
  });

  test("an open file written again with the same text keeps what was remembered", async () => {
    expect(await hoverOf(h, "src/main.ts", "wave", 4)).toContain("const wave: string");
    // New times, same bytes: the watcher's events re-sync the open document and find its text unchanged.
    const main = join(h.dir, "src/main.ts");
    writeFileSync(main, readFileSync(main, "utf8"));
    const before = await h.counts();
    expect(await hoverOf(h, "src/main.ts", "wave", 4)).toContain("const wave: string");
    expect(delta(before, await h.counts())).toEqual({ hit: 1, shared: 0, miss: 0 });
  });

  test("a change to a file the server read from disk (not open) is in the next identical answer", async () => {
    const greeter = join(h.dir, "src/greeter.ts");
    writeFileSync(
      greeter,
      `// moved down\n${readFileSync(greeter, "utf8").replace("makeGreeting(name: string): string", "makeGreeting(name: string): number").replace("greet(name);", "greet(name).length;")}`,
    );
    expect(await hoverOf(h, "src/main.ts", "wave", 4)).toContain("const wave: number");
    expect(await definitionOf(h)).toEqual(["src/greeter.ts:15"]);
  });

  test("a write followed at once by the same question, 20 times: every answer has the new content", async () => {
    // The write is queued by the kernel before the call is sent: the runner reads it before it
    // answers, and gives tsserver (which follows closed files with its own watcher) the moment to
    // see it (tsserver answered a question sent right after the write from before it).
    const greeter = join(h.dir, "src/greeter.ts");
    const original = readFileSync(greeter, "utf8");
    try {
      for (let round = 0; round < 20; round++) {
        const type = round % 2 === 0 ? "boolean" : "string";
        const body = `export function makeGreeting(name: string): ${type} {\n  return ${type === "boolean" ? "true" : "name"};\n}\n`;
        writeFileSync(greeter, original.replace(/export function makeGreeting[\s\S]*$/, body));
        expect(await hoverOf(h, "src/main.ts", "wave", 4), `round ${round}`).toContain(`const wave: ${type}`);
      }
    } finally {
      writeFileSync(greeter, original);
    }
  });

  test("a change to the asked file itself is in the next identical answer", async () => {
    const before = await referencesOf(h);
    expect(before).toContain("src/main.ts:4");
    expect(await referencesOf(h)).toEqual(before);
    const main = join(h.dir, "src/main.ts");
    const appendedLine = readFileSync(main, "utf8").split("\n").length;
    appendFileSync(main, "export const extra = makeGreeting('b');\n");
    const after = await referencesOf(h);
    expect([...after].sort()).toEqual([...before, `src/main.ts:${appendedLine}`].sort());
  });

  test("identical calls at the same time share one server request", async () => {
    appendFileSync(join(h.dir, "src/main.ts"), "// the epoch moves\n");
    const before = await h.counts();
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => hoverOf(h, "src/main.ts", "again", 4)));
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toContain("const again");
    const counted = delta(before, await h.counts());
    expect(counted.miss).toBe(1);
    expect(counted.hit + counted.shared).toBe(4);
  });
});

describe("a server whose own watcher is late (tsserver's file events 1 s behind)", () => {
  const LATE_WATCH = fileURLToPath(new URL("./support/lateTsserverWatch.cjs", import.meta.url));
  let h: Harness;
  beforeAll(async () => {
    const base = typescriptLanguage();
    const late = { ...base, env: { NODE_OPTIONS: `${base.env?.NODE_OPTIONS ?? ""} --require=${LATE_WATCH}`.trim() } };
    h = await startHarness(true, new LanguageRegistry([late]));
  });
  afterAll(() => h?.close());

  test("a change to a closed file is in the very next answer: the runner has tsserver re-read it", async () => {
    expect(await hoverOf(h, "src/main.ts", "wave", 4)).toContain("const wave: string");
    const greeter = join(h.dir, "src/greeter.ts");
    const original = readFileSync(greeter, "utf8");
    for (const [round, type] of ["boolean", "string", "boolean", "string"].entries()) {
      const body = `export function makeGreeting(name: string): ${type} {\n  return ${type === "boolean" ? "true" : "name"};\n}\n`;
      writeFileSync(greeter, original.replace(/export function makeGreeting[\s\S]*$/, body));
      expect(await hoverOf(h, "src/main.ts", "wave", 4), `round ${round}`).toContain(`const wave: ${type}`);
    }
  });
});

describe("without a watcher (only the stat check notices)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(false);
  });
  afterAll(() => h?.close());

  test("two writes of the same size right after each other are both seen", async () => {
    const main = join(h.dir, "src/main.ts");
    const original = readFileSync(main, "utf8");
    const numbered = original.replace(
      'const total: number = makeGreeting("a").length;',
      "const total = 1234567890123;",
    );
    const texted = original.replace('const total: number = makeGreeting("a").length;', 'const total = "12345678901";');
    expect(numbered.length).toBe(texted.length);
    writeFileSync(main, numbered);
    expect(await hoverOf(h, "src/main.ts", "total", 6)).toContain("const total: 1234567890123");
    expect(await hoverOf(h, "src/main.ts", "total", 6)).toContain("const total: 1234567890123");
    writeFileSync(main, texted);
    expect(await hoverOf(h, "src/main.ts", "total", 6)).toContain('const total: "12345678901"');
  });
});
