import { create } from "@bufbuild/protobuf";
import type { IndexedSymbol, SymbolIndexMeta, SymbolIndexSource } from "@lspmesh/events";
import { ServerState, SymbolKind, WorkspaceSymbolsAnswerSchema } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { GatewayError } from "../../errors.js";
import { TenantIndex } from "../../symbols/tenantIndex.js";
import { type SearchParts, searchAnswer } from "./searchSymbols.js";

const answer = (state: ServerState, names: Array<[string, SymbolKind]>, partial = false) =>
  create(WorkspaceSymbolsAnswerSchema, {
    status: { state, language: "typescript", partial },
    symbols: names.map(([name, kind], index) => ({
      name,
      kind,
      location: { file: "src/index.ts", range: { start: { line: index + 1, column: 14 } }, snippet: "" },
    })),
  });

const meta = (workspace: string, state: SymbolIndexMeta["state"] = "ready"): SymbolIndexMeta => ({
  v: 1,
  tenant: "acme",
  workspace,
  runner: "runner-1",
  state,
  epoch: 1_767_950_000_000,
  total: 10,
  done: state === "ready" ? 10 : 4,
  files: 10,
  symbols: 40,
  skipped: { tooLarge: 0, binary: 0, failed: 0, overCap: 0 },
  sources: { "typescript-syntax": 10 },
  updatedAt: 1_767_950_000_000,
});

const declared = (name: string, kind: string, exported = true, line = 1): IndexedSymbol => ({
  name,
  kind,
  exported,
  line,
  column: 14,
  endLine: line,
  endColumn: 14 + name.length,
  snippet: `export class ${name} {}`,
});

/** Indexes of tenant acme: workspace → files → declarations. */
function indexes(
  spec: Record<
    string,
    { state?: SymbolIndexMeta["state"]; files: Record<string, IndexedSymbol[]>; source?: SymbolIndexSource }
  >,
): SearchParts["indexed"] {
  const tenant = new TenantIndex("acme");
  for (const [workspace, { state, files, source }] of Object.entries(spec)) {
    tenant.apply({ type: "meta", meta: meta(workspace, state) });
    for (const [file, symbols] of Object.entries(files)) {
      tenant.apply({
        type: "file",
        workspace,
        entry: {
          v: 1,
          file,
          language: source === "text" ? "lua" : "typescript",
          source: source ?? "typescript-syntax",
          epoch: 1,
          mtimeMs: 1,
          size: 1,
          symbols,
        },
      });
    }
  }
  return [...tenant.workspaces].map(([workspace, view]) => ({ workspace, view }));
}

const parts = (overrides: Partial<SearchParts>): SearchParts => ({
  query: "Widget",
  limit: 100,
  indexed: [],
  live: [],
  skipped: [],
  filters: {},
  ...overrides,
});

test("indexed workspaces answer complete; ranking puts exact, exported, types and shallow paths first", () => {
  const { structured, text } = searchAnswer(
    parts({
      indexed: indexes({
        web: {
          files: {
            "src/widgets/deep/a.ts": [declared("Widget", "class")],
            "src/b.ts": [declared("makeWidget", "function"), declared("WidgetWeb", "class", false)],
          },
        },
        api: { files: { "src/index.ts": [declared("Widget", "interface"), declared("Widget", "variable", false, 9)] } },
      }),
    }),
  );
  expect(structured.partial).toBe(false);
  expect(structured.state).toBe("ready");
  expect(structured.symbols.map((s) => `${s.workspace}:${s.name}:${s.kind}`)).toEqual([
    "api:Widget:interface",
    "web:Widget:class",
    "api:Widget:variable",
    "web:WidgetWeb:class",
    "web:makeWidget:function",
  ]);
  expect(structured.symbols[1]).toMatchObject({ exported: true, source: "typescript-syntax", language: "typescript" });
  expect(structured.workspaces).toEqual([
    expect.objectContaining({ workspace: "web", outcome: "ok", source: "index", count: 3 }),
    expect.objectContaining({ workspace: "api", outcome: "ok", source: "index", count: 2 }),
  ]);
  expect(structured.workspaces[0]!.index).toMatchObject({ state: "ready", epoch: 1_767_950_000_000, files: 10 });
  expect(text.split("\n")[0]).toBe('5 symbols matching "Widget" in 2 workspaces:');
  expect(text).toContain("interface Widget  api:src/index.ts:1:14");
});

test("indexing, live, failed, late and skipped workspaces are labelled; the rest still answers", () => {
  const { structured, text } = searchAnswer(
    parts({
      indexed: indexes({
        web: { files: { "src/a.ts": [declared("WidgetWeb", "class")] } },
        docs: { state: "indexing", files: {} },
      }),
      live: [
        { workspace: "shop", answers: [answer(ServerState.READY, [["WidgetShop", SymbolKind.CLASS]])] },
        { workspace: "api", answers: [], error: new GatewayError("UNAVAILABLE", "the runner is unavailable") },
        { workspace: "lib", answers: [], error: new GatewayError("TIMEOUT", "did not answer in time") },
      ],
      skipped: ["extra"],
    }),
  );
  expect(structured.partial).toBe(true);
  expect(structured.symbols.map((s) => `${s.name}:${s.source}`)).toEqual([
    "WidgetWeb:typescript-syntax",
    "WidgetShop:live",
  ]);
  expect(structured.workspaces.map((w) => [w.workspace, w.outcome, w.source, w.code])).toEqual([
    ["web", "ok", "index", undefined],
    ["docs", "indexing", "index", undefined],
    ["shop", "partial", "live", undefined],
    ["api", "failed", "live", "UNAVAILABLE"],
    ["lib", "timeout", "live", "TIMEOUT"],
    ["extra", "skipped", "none", undefined],
  ]);
  expect(structured.workspaces[1]!.index?.progress).toEqual({ done: 4, total: 10 });
  expect(text).toContain("Partial: 5 workspaces not complete:");
  expect(text).toContain("- docs: indexing: its symbol index is being built: 4 of 10 files");
  expect(text).toContain("- shop: partial: no symbol index yet (it is being built): asked its language server");
  expect(text).toContain("- api: failed UNAVAILABLE: the runner is unavailable");
});

test("nothing found while some workspaces are not complete is not claimed to be nothing", () => {
  const late = searchAnswer(
    parts({ query: "Nope", live: [{ workspace: "api", answers: [], error: new GatewayError("TIMEOUT", "late") }] }),
  );
  expect(late.text).toMatch(/^No symbols matching "Nope" found so far; some workspaces are not complete/);
  const complete = searchAnswer(parts({ query: "Nope", indexed: indexes({ api: { files: {} } }) }));
  expect(complete.text).toBe('No symbols match "Nope" in 1 workspace.');
  expect(complete.structured.partial).toBe(false);
});

test("the limit keeps the best; total counts all", () => {
  const many = Array.from({ length: 5 }, (_, i) => declared(`Widget${i}`, "class"));
  const { structured } = searchAnswer(parts({ limit: 2, indexed: indexes({ web: { files: { "a.ts": many } } }) }));
  expect(structured.symbols.map((s) => s.name)).toEqual(["Widget0", "Widget1"]);
  expect(structured.total).toBe(5);
});

test("text matches are listed apart, never among the declarations", () => {
  const { structured, text } = searchAnswer(
    parts({
      indexed: indexes({
        web: { files: { "src/a.ts": [declared("Widget", "class")] } },
        scripts: {
          files: { "tools/build.lua": [{ ...declared("Widget", "text", false), snippet: "local Widget = {}" }] },
          source: "text",
        },
      }),
    }),
  );
  expect(structured.symbols.map((s) => s.workspace)).toEqual(["web"]);
  expect(structured.text_matches).toEqual([
    expect.objectContaining({ workspace: "scripts", name: "Widget", language: "lua" }),
  ]);
  expect(structured.text_total).toBe(1);
  expect(text).toContain(
    "Text matches (1; words of files indexed as text, whose language has no symbol source or whose server has not run yet; not declarations):",
  );
  // Declarations in files indexed as words are unknown: that workspace's part is partial, and says why.
  expect(structured.workspaces.map(({ workspace, outcome }) => [workspace, outcome])).toEqual([
    ["web", "ok"],
    ["scripts", "partial"],
  ]);
  expect(structured.workspaces[1]?.message).toMatch(/^its lua files are indexed as words until their server runs/);
  expect(structured.partial).toBe(true);
});

test("a word that matches only as a server would (its characters in order) leaves the workspace partial, with no text match", () => {
  const click = {
    files: { "src/click/globals.py": [declared("get_current_context", "text", false)] },
    source: "text" as const,
  };
  const { structured, text } = searchAnswer(parts({ query: "gcc", indexed: indexes({ click }) }));
  expect(structured.text_matches).toEqual([]);
  expect(structured.partial).toBe(true);
  expect(structured.workspaces[0]).toMatchObject({ outcome: "partial" });
  expect(structured.workspaces[0]?.message).toMatch(
    /^its lua files are indexed as words until their server runs: declarations there are not known yet/,
  );
  expect(text).toMatch(/^No symbols matching "gcc" found so far; some workspaces are not complete/);
});

test("a workspace whose words do not match is complete, and files a server failed on or too large make it partial", () => {
  const scripts = { files: { "tools/build.lua": [declared("Other", "text", false)] }, source: "text" as const };
  const { structured } = searchAnswer(parts({ indexed: indexes({ scripts }) }));
  expect(structured.workspaces.map(({ outcome }) => outcome)).toEqual(["ok"]);
  const failed = indexes({ scripts });
  failed[0]!.view.meta!.skipped.failed = 2;
  const withFailures = searchAnswer(parts({ indexed: failed })).structured;
  expect(withFailures.workspaces[0]).toMatchObject({
    outcome: "partial",
    message: "2 of its files could not be indexed (their language server failed on them)",
  });
  // A file over the size limit holds declarations no search sees; a binary file holds none.
  const large = indexes({ scripts });
  large[0]!.view.meta!.skipped.binary = 3;
  expect(searchAnswer(parts({ indexed: large })).structured.workspaces[0]?.outcome).toBe("ok");
  large[0]!.view.meta!.skipped.tooLarge = 1;
  expect(searchAnswer(parts({ indexed: large })).structured.workspaces[0]).toMatchObject({
    outcome: "partial",
    message: expect.stringMatching(/^1 of its files are over the runner's file size limit .* not indexed/),
  });
});
