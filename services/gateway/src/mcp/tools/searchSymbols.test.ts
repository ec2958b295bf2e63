import { create } from "@bufbuild/protobuf";
import { ServerState, SymbolKind, WorkspaceSymbolsAnswerSchema } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { GatewayError } from "../../errors.js";
import { searchAnswer } from "./searchSymbols.js";

const answer = (state: ServerState, names: Array<[string, SymbolKind]>, partial = false) =>
  create(WorkspaceSymbolsAnswerSchema, {
    status: { state, language: "typescript", partial },
    symbols: names.map(([name, kind], index) => ({
      name,
      kind,
      location: { file: "src/index.ts", range: { start: { line: index + 1, column: 14 } }, snippet: "" },
    })),
  });

test("results of every workspace are merged and ranked; all answered = complete", () => {
  const { structured, text } = searchAnswer(
    "Widget",
    [
      {
        workspace: "web",
        answers: [
          answer(ServerState.READY, [
            ["makeWidget", SymbolKind.FUNCTION],
            ["WidgetWeb", SymbolKind.CLASS],
          ]),
        ],
      },
      { workspace: "api", answers: [answer(ServerState.READY, [["Widget", SymbolKind.INTERFACE]])] },
    ],
    [],
    100,
  );
  expect(structured.partial).toBe(false);
  expect(structured.symbols.map((s) => `${s.workspace}:${s.name}`)).toEqual([
    "api:Widget",
    "web:WidgetWeb",
    "web:makeWidget",
  ]);
  expect(structured.workspaces).toEqual([
    { workspace: "web", outcome: "ok", count: 2 },
    { workspace: "api", outcome: "ok", count: 1 },
  ]);
  expect(text.split("\n")[0]).toBe('3 symbols matching "Widget" in 2 workspaces:');
  expect(text).toContain("interface Widget  api:src/index.ts:1:14");
});

test("missing, failed, late and indexing workspaces are labelled; the rest still answers", () => {
  const { structured, text } = searchAnswer(
    "Widget",
    [
      { workspace: "web", answers: [answer(ServerState.READY, [["WidgetWeb", SymbolKind.CLASS]])] },
      { workspace: "api", answers: [], error: new GatewayError("UNAVAILABLE", "the runner is unavailable") },
      { workspace: "lib", answers: [], error: new GatewayError("TIMEOUT", "did not answer in time") },
      { workspace: "docs", answers: [answer(ServerState.INDEXING, [], true)] },
    ],
    ["extra"],
    100,
  );
  expect(structured.partial).toBe(true);
  expect(structured.symbols.map((s) => s.name)).toEqual(["WidgetWeb"]);
  expect(structured.workspaces.map((w) => [w.workspace, w.outcome, w.code])).toEqual([
    ["web", "ok", undefined],
    ["api", "failed", "UNAVAILABLE"],
    ["lib", "timeout", "TIMEOUT"],
    ["docs", "partial", undefined],
    ["extra", "skipped", undefined],
  ]);
  expect(text).toContain("Partial: 4 workspaces did not answer completely:");
  expect(text).toContain("- api: failed UNAVAILABLE: the runner is unavailable");
});

test("nothing found while some workspaces are missing is not claimed to be nothing", () => {
  const { text } = searchAnswer(
    "Nope",
    [{ workspace: "api", answers: [], error: new GatewayError("TIMEOUT", "late") }],
    [],
    10,
  );
  expect(text).toMatch(/^No symbols matching "Nope" found so far; some workspaces did not answer completely/);
  const complete = searchAnswer("Nope", [{ workspace: "api", answers: [answer(ServerState.READY, [])] }], [], 10);
  expect(complete.text).toBe('No symbols match "Nope" in 1 workspace.');
});

test("the limit keeps the best; total counts all", () => {
  const many = Array.from({ length: 5 }, (_, i) => [`Widget${i}`, SymbolKind.CLASS] as [string, SymbolKind]);
  const { structured } = searchAnswer(
    "Widget",
    [{ workspace: "web", answers: [answer(ServerState.READY, many)] }],
    [],
    2,
  );
  expect(structured.symbols.map((s) => s.name)).toEqual(["Widget0", "Widget1"]);
  expect(structured.total).toBe(5);
});
