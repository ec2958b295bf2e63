// The symbol index built by the runner on a workspace shaped like honojs/hono (a solution
// tsconfig with referenced projects, projects nobody references, files in no project): cold, it
// holds the declaration of every top-level exported symbol that typescript-language-server's
// workspace/symbol finds once the runner has loaded every project; and it follows file changes.
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SymbolIndexFileEntry } from "@lspmesh/events";
import { createClient, type ServiceClient } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { type FixtureWorkspace, fixtureWorkspace } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  LanguageRegistry,
  pythonLanguage,
  type RunnerServer,
  SingleWorkspaceLocator,
  startRunnerServer,
  typescriptLanguage,
} from "./runnerInternals.js";

const ws = { tenant: "local", workspace: "default" };
let fixture: FixtureWorkspace;
let runner: RunnerServer;
let client: ServiceClient<typeof Runner.method>;

beforeAll(async () => {
  fixture = fixtureWorkspace("typescript-hono-shape");
  runner = await startRunnerServer({
    listen: "127.0.0.1:0",
    locator: new SingleWorkspaceLocator(fixture.dir, ws.tenant, ws.workspace),
    languages: new LanguageRegistry([typescriptLanguage()]),
    symbolIndex: { workspaces: [ws] },
    watchDebounceMs: 20,
  });
  client = createClient(Runner, runner.address);
});

afterAll(async () => {
  client?.close();
  await runner?.close();
  fixture?.[Symbol.dispose]();
});

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
  mkdirSync(join(fixture.dir, "src/helper/dev"), { recursive: true });
  writeFileSync(join(fixture.dir, "src/helper/dev/index.ts"), "export const showRoutes = () => [];\n");
  writeFileSync(join(fixture.dir, "src/utils/url.ts"), "export const getPathNoStrict = 1;\n");
  unlinkSync(join(fixture.dir, "src/client/utils.mts"));
  await expect
    .poll(async () => (await stored()).find((entry) => entry.file === "src/helper/dev/index.ts")?.symbols[0]?.name)
    .toBe("showRoutes");
  await expect
    .poll(async () =>
      (await stored()).find((entry) => entry.file === "src/utils/url.ts")?.symbols.map((symbol) => symbol.name),
    )
    .toEqual(["getPathNoStrict"]);
  await expect.poll(async () => (await stored()).some((entry) => entry.file === "src/client/utils.mts")).toBe(false);
  const after = await runner.events.symbolIndex.read(ws.tenant, ws.workspace);
  expect(after.files.get("src/compose.ts")).toEqual(untouched);
  expect(after.meta!.epoch).toBeGreaterThan(before.epoch);
  rmSync(join(fixture.dir, "src/helper/dev"), { recursive: true });
  await expect.poll(async () => (await stored()).some((entry) => entry.file === "src/helper/dev/index.ts")).toBe(false);
});

describe("a language without a syntax source", () => {
  let python: FixtureWorkspace;
  let pythonRunner: RunnerServer;
  let pythonClient: ServiceClient<typeof Runner.method>;

  beforeAll(async () => {
    python = fixtureWorkspace("python-basic");
    pythonRunner = await startRunnerServer({
      listen: "127.0.0.1:0",
      locator: new SingleWorkspaceLocator(python.dir, ws.tenant, ws.workspace),
      languages: new LanguageRegistry([pythonLanguage()]),
      symbolIndex: { workspaces: [ws] },
    });
    pythonClient = createClient(Runner, pythonRunner.address);
  });

  afterAll(async () => {
    pythonClient?.close();
    await pythonRunner?.close();
    python?.[Symbol.dispose]();
  });

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
    await expect.poll(async () => (await greeter())?.source, { timeout: 60_000 }).toBe("lsp-document-symbol");
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
