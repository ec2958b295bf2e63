import type { IndexedSymbol, SymbolIndexFileEntry, SymbolIndexSource } from "@lspmesh/events";
import { expect, test } from "vitest";
import { searchIndexes } from "./indexSearch.js";
import { TenantIndex } from "./tenantIndex.js";

const symbol = (name: string, kind: string, exported: boolean, line = 1): IndexedSymbol => ({
  name,
  kind,
  exported,
  line,
  column: 1,
  endLine: line,
  endColumn: name.length + 1,
  snippet: name,
});

function file(
  path: string,
  symbols: IndexedSymbol[],
  source: SymbolIndexSource = "typescript-syntax",
  language = "typescript",
): SymbolIndexFileEntry {
  return { v: 1, file: path, language, source, epoch: 1, mtimeMs: 1, size: 1, symbols };
}

function tenant(): TenantIndex {
  const index = new TenantIndex("acme");
  index.apply({
    type: "file",
    workspace: "web",
    entry: file("src/deep/nested/a.ts", [
      symbol("compose", "function", true),
      symbol("composeLocal", "variable", false),
    ]),
  });
  index.apply({
    type: "file",
    workspace: "web",
    entry: file("src/b.ts", [symbol("compose", "variable", false), symbol("Composer", "class", true)]),
  });
  index.apply({ type: "file", workspace: "api", entry: file("lib/c.ts", [symbol("compose", "function", true)]) });
  index.apply({
    type: "file",
    workspace: "api",
    entry: file("notes.lua", [symbol("compose", "text", false)], "text", "lua"),
  });
  return index;
}

const views = (index: TenantIndex) => [...index.workspaces].map(([workspace, view]) => ({ workspace, view }));

test("ranked by match, exported, kind and path depth before the limit cuts; total counts every match", () => {
  const result = searchIndexes(views(tenant()), "compose", {}, 3);
  expect(result.symbols.map((hit) => `${hit.workspace}:${hit.file}:${hit.symbol.name}`)).toEqual([
    "api:lib/c.ts:compose",
    "web:src/deep/nested/a.ts:compose",
    "web:src/b.ts:compose",
  ]);
  expect(result.total).toBe(5);
  expect(result.counts).toEqual(
    new Map([
      ["web", 4],
      ["api", 2],
    ]),
  );
});

test("text matches are kept apart from declarations", () => {
  const result = searchIndexes(views(tenant()), "compose", {}, 100);
  expect(result.symbols.every((hit) => hit.source !== "text")).toBe(true);
  expect(result.textMatches.map((hit) => hit.file)).toEqual(["notes.lua"]);
  expect(result.textTotal).toBe(1);
});

test("filters: kind, language, path and exported", () => {
  const all = views(tenant());
  const names = (filters: Parameters<typeof searchIndexes>[2]) =>
    searchIndexes(all, "compose", filters, 100).symbols.map((hit) => `${hit.file}:${hit.symbol.name}`);
  expect(names({ kinds: new Set(["class"]) })).toEqual(["src/b.ts:Composer"]);
  expect(names({ path: (path) => path.startsWith("lib/") })).toEqual(["lib/c.ts:compose"]);
  expect(names({ exportedOnly: true })).toEqual([
    "lib/c.ts:compose",
    "src/deep/nested/a.ts:compose",
    "src/b.ts:Composer",
  ]);
  expect(searchIndexes(all, "compose", { languages: new Set(["python"]) }, 100).total).toBe(0);
});

test("a meta of another tenant is never taken in", () => {
  const index = new TenantIndex("acme");
  index.apply({
    type: "meta",
    meta: {
      v: 1,
      tenant: "globex",
      workspace: "shop",
      runner: "r",
      state: "ready",
      epoch: 1,
      total: 0,
      done: 0,
      files: 0,
      symbols: 0,
      skipped: { tooLarge: 0, binary: 0, failed: 0, overCap: 0 },
      sources: {},
      updatedAt: 1,
    },
  });
  expect(index.workspaces.size).toBe(0);
});
