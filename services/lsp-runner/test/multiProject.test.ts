// A workspace shaped like hono's: a root tsconfig that includes only src/, a root eslint.config.js
// outside it (the first file by name), tests in their own project, and a benchmarks project. From
// a cold start the first workspace-wide answers cover every project: tsserver only knows the
// projects of open files, so the runner opens one file per project first.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HierarchyRequest_Direction } from "@lspmesh/proto";
import { isFaultsTier, waitFor } from "@lspmesh/test-kit";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { LanguageRegistry, typescriptLanguage } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const FILES: Record<string, string> = {
  "eslint.config.js": "export default [];\n",
  "package.json": '{ "name": "shape", "type": "module" }\n',
  "tsconfig.json":
    '{\n  // the library only\n  "compilerOptions": { "strict": true, "module": "ESNext", "moduleResolution": "Bundler", "noEmit": true },\n  "include": ["src"],\n}\n',
  "src/compose.ts": "export function compose(a: number, b: number): number {\n  return a + b;\n}\n",
  "src/index.ts": 'import { compose } from "./compose";\n\nexport const total = compose(1, 2);\n',
  "src/variants.ts": "export const composeA = 1;\nexport const composeB = 2;\nexport class Composer {}\n",
  "src/shape.ts":
    "export interface Shape {\n  area(): number;\n}\nexport class Square implements Shape {\n  area() {\n    return 4;\n  }\n}\n",
  "test/tsconfig.json":
    '{ "compilerOptions": { "strict": true, "module": "ESNext", "moduleResolution": "Bundler", "noEmit": true }, "include": ["."] }\n',
  "test/compose.spec.ts": 'import { compose } from "../src/compose";\n\nexport const checked = compose(2, 3) === 5;\n',
  "test/circle.ts":
    'import type { Shape } from "../src/shape";\n\nexport class Circle implements Shape {\n  area() {\n    return 3;\n  }\n}\n',
  "benchmarks/bench/tsconfig.json":
    '{ "compilerOptions": { "strict": true, "module": "ESNext", "moduleResolution": "Bundler", "noEmit": true }, "include": ["*.ts"] }\n',
  "benchmarks/bench/run.ts":
    'import { compose } from "../../src/compose";\n\nexport function benchTarget(): number {\n  return compose(3, 4);\n}\n',
};

let env: FixtureRunner;
let client: FixtureRunner["client"];

/** A runner just started on a fresh copy of FILES: its TypeScript server starts cold. */
async function coldRunner(): Promise<void> {
  env = await startFixtureRunner({ files: FILES, languages: new LanguageRegistry([typescriptLanguage()]) });
  client = env.client;
}
const closeRunner = () => env?.close();

const composeAt = {
  file: "src/compose.ts",
  target: { case: "symbol" as const, value: { name: "compose", lineHint: 1, occurrence: 0 } },
};

// The ranking test needs no cold server: it shares the first test's runner (one cold start less).
describe("one runner", () => {
  beforeAll(coldRunner);
  afterAll(closeRunner);

  test("cold: the first workspace_symbols finds symbols of every project", async () => {
    const bench = await client.workspaceSymbols({
      workspace: ws,
      query: "benchTarget",
      language: "typescript",
      limit: 10,
    });
    expect(bench.symbols.map((symbol) => `${symbol.name} ${symbol.location?.file}`)).toContain(
      "benchTarget benchmarks/bench/run.ts",
    );
    expect(bench.status?.partial).toBe(false);
    const compose = await client.workspaceSymbols({
      workspace: ws,
      query: "compose",
      language: "typescript",
      limit: 10,
    });
    expect(compose.symbols.map((symbol) => symbol.location?.file)).toContain("src/compose.ts");
    // At the name, as every location (tsserver's own span starts at `export`).
    const declared = compose.symbols.find((symbol) => symbol.name === "compose");
    expect(declared?.location?.range?.start).toMatchObject({ line: 1, column: 17 });
  });

  test("a limit keeps the best-ranked matches and the total counts them all", async () => {
    const best = await client.workspaceSymbols({ workspace: ws, query: "compose", language: "typescript", limit: 1 });
    expect(best.symbols.map((symbol) => `${symbol.name} ${symbol.location?.file}`)).toEqual(["compose src/compose.ts"]);
    expect(best.total).toBeGreaterThanOrEqual(4); // compose, composeA, composeB, Composer
    const all = await client.workspaceSymbols({ workspace: ws, query: "compose", language: "typescript", limit: 100 });
    expect(all.total).toBe(all.symbols.length);
    // Ranked: exact, then case-sensitive prefixes, then case-insensitive ones.
    expect(all.symbols.map((symbol) => symbol.name)).toEqual(["compose", "composeA", "composeB", "Composer"]);
  });

  // tsserver answers implementations and callers from one project only: the runner asks the other
  // projects from a use of the symbol in each (test/circle.ts for the tests project's implementations).
  test("implementations and incoming calls come from every project", async () => {
    const shapeAt = {
      file: "src/shape.ts",
      target: { case: "symbol" as const, value: { name: "Shape", lineHint: 1, occurrence: 0 } },
    };
    const implementations = await client.findImplementations({ workspace: ws, at: shapeAt });
    expect(
      implementations.locations.map((location) => `${location.file}:${location.range?.start?.line}`).sort(),
    ).toEqual(["src/shape.ts:4", "test/circle.ts:3"]);
    expect(implementations.status?.partial).toBe(false);
    const incoming = await client.callHierarchy({
      workspace: ws,
      at: composeAt,
      direction: HierarchyRequest_Direction.INCOMING,
      depth: 1,
    });
    const callers = (incoming.root?.children ?? []).map(
      (caller) =>
        `${caller.name} ${caller.callSitesFile}:${caller.callSites.map((site) => site.start?.line).join(",")}`,
    );
    expect(callers.sort()).toEqual([
      "benchTarget benchmarks/bench/run.ts:4",
      "compose.spec.ts test/compose.spec.ts:3",
      "index.ts src/index.ts:3",
    ]);
    expect(incoming.status?.partial).toBe(false);
    // Below the first level, each caller's callers come from its own project: said, and partial.
    const deeper = await client.callHierarchy({
      workspace: ws,
      at: composeAt,
      direction: HierarchyRequest_Direction.INCOMING,
      depth: 2,
    });
    expect(deeper.root?.children).toHaveLength(3);
    expect(deeper.status?.partial).toBe(true);
    expect(deeper.status?.note).toContain("callers below the first level are asked from their own file's project only");
  });

  test("a project created while the runner runs is searched too: its callers are found", async () => {
    mkdirSync(join(env.dir, "tools"), { recursive: true });
    writeFileSync(join(env.dir, "tools/tsconfig.json"), FILES["test/tsconfig.json"]!);
    writeFileSync(
      join(env.dir, "tools/late.ts"),
      'import { compose } from "../src/compose";\n\nexport function lateCaller(): number {\n  return compose(5, 6);\n}\n',
    );
    const callers = await waitFor("the new project's caller", async () => {
      const incoming = await client.callHierarchy({
        workspace: ws,
        at: composeAt,
        direction: HierarchyRequest_Direction.INCOMING,
        depth: 1,
      });
      const names = (incoming.root?.children ?? []).map((caller) => caller.name);
      return names.includes("lateCaller") ? { names, partial: incoming.status?.partial } : undefined;
    });
    expect(callers.names.sort()).toEqual(["benchTarget", "compose.spec.ts", "index.ts", "lateCaller"]);
    expect(callers.partial).toBe(false);
  });
});

describe("a runner each", () => {
  beforeEach(coldRunner);
  afterEach(closeRunner);

  test("cold: the first find_references covers the tests and benchmarks projects", async () => {
    const answer = await client.findReferences({ workspace: ws, at: composeAt, includeDeclaration: true, limit: 100 });
    const files = answer.locations.map((location) => `${location.file}:${location.range?.start?.line}`).sort();
    expect(files).toEqual([
      "benchmarks/bench/run.ts:1",
      "benchmarks/bench/run.ts:4",
      "src/compose.ts:1",
      "src/index.ts:1",
      "src/index.ts:3",
      "test/compose.spec.ts:1",
      "test/compose.spec.ts:3",
    ]);
    expect(answer.status?.partial).toBe(false);
    // Pages of 3 (offset, limit) walk the same list once.
    const paged: string[] = [];
    for (let offset = 0; offset < answer.total; offset += 3) {
      const page = await client.findReferences({
        workspace: ws,
        at: composeAt,
        includeDeclaration: true,
        limit: 3,
        offset,
      });
      expect(page.total).toBe(7);
      paged.push(...page.locations.map((location) => `${location.file}:${location.range?.start?.line}`));
    }
    expect(paged).toEqual(answer.locations.map((location) => `${location.file}:${location.range?.start?.line}`));
  });

  // The same cold load as the references above, through rename: in `npm run test:faults`.
  test.runIf(isFaultsTier())("cold: the first rename, applied, changes every use in every project", async () => {
    const answer = await client.renameSymbol({ workspace: ws, at: composeAt, newName: "combine", apply: true });
    expect(answer.applied).toBe(true);
    for (const file of ["src/compose.ts", "src/index.ts", "test/compose.spec.ts", "benchmarks/bench/run.ts"]) {
      const text = env.read(file);
      expect(text, file).toContain("combine");
      expect(text, file).not.toMatch(/\bcompose\b(?!")/);
    }
  });
});
