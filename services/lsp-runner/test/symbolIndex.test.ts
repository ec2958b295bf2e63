// The symbol index built by the runner on a workspace shaped like honojs/hono (a solution
// tsconfig with referenced projects, projects nobody references, files in no project): cold, it
// holds the declaration of every top-level exported symbol that typescript-language-server's
// workspace/symbol finds once the runner has loaded every project; and it follows file changes.
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SymbolIndexFileEntry } from "@lspmesh/events";
import { waitFor } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LanguageRegistry, pythonLanguage, typescriptLanguage } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

let env: FixtureRunner;
let runner: FixtureRunner["runner"];
let client: FixtureRunner["client"];

beforeAll(async () => {
  env = await startFixtureRunner({
    fixture: "typescript-hono-shape",
    languages: new LanguageRegistry([typescriptLanguage()]),
    symbolIndex: { workspaces: [ws] },
    watchDebounceMs: 20,
  });
  ({ runner, client } = env);
});

afterAll(() => env?.close());

async function stored(): Promise<SymbolIndexFileEntry[]> {
  await runner.symbolIndexer!.settled(ws);
  return [...(await runner.events.symbolIndex.read(ws.tenant, ws.workspace)).files.values()];
}

const EXPORTED_DECLARATION =
  /^export\s+(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:const|let|var|function\*?|class|interface|type|enum|namespace|module)\s+([\w$]+)/;

test("cold, the index holds every top-level exported declaration workspace/symbol finds with every project loaded", async () => {
  const files = await stored();
  expect(files.every((entry) => entry.source === "typescript-syntax")).toBe(true);
  const indexed = new Set(
    files.flatMap((entry) =>
      entry.symbols.filter((symbol) => symbol.exported).map((symbol) => `${symbol.name} ${entry.file}:${symbol.line}`),
    ),
  );
  // What the language server finds: every name contains a letter, so a query per letter lists them all.
  const found = new Map<string, string>();
  for (const letter of "abcdefghijklmnopqrstuvwxyz") {
    const answer = await client.workspaceSymbols({ workspace: ws, query: letter, language: "typescript", limit: 1000 });
    expect(answer.status?.partial).toBe(false);
    for (const symbol of answer.symbols) {
      const declared = EXPORTED_DECLARATION.exec(symbol.location?.snippet ?? "");
      if (declared?.[1] !== symbol.name) continue; // not a top-level exported declaration
      found.set(`${symbol.name} ${symbol.location?.file}:${symbol.location?.range?.start?.line}`, symbol.name);
    }
  }
  // The shape's projects are all there: the library, tests, runtime tests, perf scripts and benchmarks.
  expect([...found.keys()].map((key) => key.split(" ")[1]!.split(":")[0])).toEqual(
    expect.arrayContaining([
      "src/compose.ts",
      "src/helper/ssg/ssg.ts",
      "src/compose.test.ts",
      "runtime-tests/node/index.test.ts",
      "perf-measures/type-check/scripts/generate-app.ts",
      "benchmarks/routers/src/bench.mts",
    ]),
  );
  expect(found.size).toBeGreaterThan(30);
  const missing = [...found.keys()].filter((key) => !indexed.has(key));
  expect(missing).toEqual([]);
  // Files in no project at all are indexed too (workspace/symbol cannot see them).
  expect(indexed).toContain("fastlyHandler runtime-tests/fastly/index.js:1");
  expect(indexed).toContain("ignoredPaths eslint.config.mjs:2");
  // A symlink to outside the workspace is never followed.
  expect(files.map((entry) => entry.file)).not.toContain("src/leak.ts");
}, 120_000);

test("file changes update only the changed files' entries and advance the epoch", async () => {
  await stored();
  const before = (await runner.events.symbolIndex.read(ws.tenant, ws.workspace)).meta!;
  expect(before).toMatchObject({ state: "ready", runner: runner.id });
  const untouched = (await runner.events.symbolIndex.read(ws.tenant, ws.workspace)).files.get("src/compose.ts")!;
  mkdirSync(join(env.dir, "src/helper/dev"), { recursive: true });
  writeFileSync(join(env.dir, "src/helper/dev/index.ts"), "export const showRoutes = () => [];\n");
  writeFileSync(join(env.dir, "src/utils/url.ts"), "export const getPathNoStrict = 1;\n");
  unlinkSync(join(env.dir, "src/client/utils.mts"));
  const entryOf = async (file: string) => (await stored()).find((entry) => entry.file === file);
  await waitFor(
    "the created file's entry",
    async () => (await entryOf("src/helper/dev/index.ts"))?.symbols[0]?.name === "showRoutes",
  );
  await waitFor("the changed file's entry", async () => {
    const names = (await entryOf("src/utils/url.ts"))?.symbols.map((symbol) => symbol.name);
    return JSON.stringify(names) === JSON.stringify(["getPathNoStrict"]);
  });
  await waitFor("the deleted file's entry to go", async () => (await entryOf("src/client/utils.mts")) === undefined);
  const after = await runner.events.symbolIndex.read(ws.tenant, ws.workspace);
  expect(after.files.get("src/compose.ts")).toEqual(untouched);
  expect(after.meta!.epoch).toBeGreaterThan(before.epoch);
  rmSync(join(env.dir, "src/helper/dev"), { recursive: true });
  await waitFor(
    "the removed folder's entry to go",
    async () => (await entryOf("src/helper/dev/index.ts")) === undefined,
  );
});

describe("a language without a syntax source", () => {
  let python: FixtureRunner;
  let pythonRunner: FixtureRunner["runner"];
  let pythonClient: FixtureRunner["client"];

  beforeAll(async () => {
    python = await startFixtureRunner({
      fixture: "python-basic",
      languages: new LanguageRegistry([pythonLanguage()]),
      symbolIndex: { workspaces: [ws] },
    });
    ({ runner: pythonRunner, client: pythonClient } = python);
  });

  afterAll(() => python?.close());

  const greeter = async () => {
    await pythonRunner.symbolIndexer!.settled(ws);
    return (await pythonRunner.events.symbolIndex.read(ws.tenant, ws.workspace)).files.get("src/greeter.py");
  };

  test("is indexed as text matches without starting its server, then from documentSymbol once its server runs", async () => {
    const cold = await greeter();
    expect(cold?.source).toBe("text");
    expect(cold?.symbols.map((symbol) => symbol.name)).toContain("PoliteGreeter");
    expect(cold?.symbols.every((symbol) => symbol.kind === "text")).toBe(true);
    expect(pythonRunner.sessions.statusOf(ws.tenant, ws.workspace)).toEqual([]);

    // An agent's request starts the server; once it is ready the files are read again from it.
    const outline = await pythonClient.documentSymbols({ workspace: ws, file: "src/main.py" });
    expect(outline.symbols.length).toBeGreaterThan(0);
    await waitFor(
      "greeter.py indexed from documentSymbol",
      async () => (await greeter())?.source === "lsp-document-symbol",
      {
        timeoutMs: 60_000,
      },
    );
    const served = await greeter();
    expect(served?.symbols).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "PoliteGreeter", kind: "class", exported: true, line: 4, column: 7 }),
        expect.objectContaining({ name: "greet", kind: "method", container: "PoliteGreeter", exported: false }),
        expect.objectContaining({ name: "make_greeting", kind: "function", exported: true }),
      ]),
    );
  }, 120_000);
});
