import { create } from "@bufbuild/protobuf";
import { ServerState, SymbolKind, WorkspaceSymbolsAnswerSchema } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { mergedWorkspaceSymbolsAnswer, workspaceSymbolsAnswer } from "./workspaceSymbols.js";

test("each match shows kind, name, container and where it is declared", () => {
  const answer = create(WorkspaceSymbolsAnswerSchema, {
    status: { state: ServerState.READY, language: "go" },
    symbols: [
      {
        name: "Überprüfe",
        kind: SymbolKind.FUNCTION,
        containerName: "prüfung",
        location: {
          file: "prüfung/prüfe.go",
          range: { start: { line: 12, column: 6 }, end: { line: 12, column: 15 } },
          snippet: "func Überprüfe(x int) error {",
        },
      },
      {
        name: "Config",
        kind: SymbolKind.STRUCT,
        location: { file: "config.go", range: { start: { line: 3, column: 6 } } },
      },
    ],
  });
  const { text, structured } = workspaceSymbolsAnswer(answer, "prüf", 100);
  expect(text).toBe(
    '2 symbols matching "prüf":\nfunction Überprüfe (in prüfung)  prüfung/prüfe.go:12:6\nstruct Config  config.go:3:6',
  );
  expect(structured.symbols[0]).toEqual({
    name: "Überprüfe",
    kind: "function",
    container: "prüfung",
    location: {
      file: "prüfung/prüfe.go",
      line: 12,
      column: 6,
      end_line: 12,
      end_column: 15,
      snippet: "func Überprüfe(x int) error {",
    },
  });
  expect(structured.query).toBe("prüf");
});

test("no matches: plain from a ready server, not-ready wording while indexing", () => {
  const ready = create(WorkspaceSymbolsAnswerSchema, { status: { state: ServerState.READY } });
  expect(workspaceSymbolsAnswer(ready, "nothing", 100).text).toBe('No symbols match "nothing".');
  expect(workspaceSymbolsAnswer(ready, "Console.print", 100).text).toBe(
    'No symbols match "Console.print". The server matches a symbol\'s own name, not a path: find_symbol takes "Console.print" as container and name.',
  );
  const indexing = create(WorkspaceSymbolsAnswerSchema, {
    status: { state: ServerState.INDEXING, language: "go", partial: true },
  });
  expect(workspaceSymbolsAnswer(indexing, "x", 100).text).toBe(
    "No results yet: the go server is indexing; try again shortly.",
  );
});

test("the true total is told when the list is cut, and answers of several languages are ranked together", () => {
  const symbol = (name: string, file: string, kind = SymbolKind.FUNCTION) => ({
    name,
    kind,
    location: { file, range: { start: { line: 1, column: 1 } } },
  });
  const typescript = create(WorkspaceSymbolsAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript" },
    symbols: [symbol("composeAll", "a.ts"), symbol("compose", "b.ts")],
    total: 40,
  });
  const python = create(WorkspaceSymbolsAnswerSchema, {
    status: { state: ServerState.READY, language: "python" },
    symbols: [symbol("Compose", "c.py", SymbolKind.CLASS)],
    total: 1,
  });
  const { text, structured } = mergedWorkspaceSymbolsAnswer([typescript, python], "compose", 2);
  expect(structured.total).toBe(41);
  expect(structured.symbols.map((s) => s.name)).toEqual(["compose", "Compose"]);
  expect(text.split("\n")[0]).toBe('41 symbols matching "compose"; showing 1-2 (offset: 2 for the next ones):');
  expect(structured).toMatchObject({ offset: 0, next_offset: 2 });

  // The next page: the runners were asked for offset + limit, and the gateway slices after ranking.
  const page = mergedWorkspaceSymbolsAnswer([typescript, python], "compose", 2, [], 2);
  expect(page.structured.symbols.map((s) => s.name)).toEqual(["composeAll"]);
  expect(page.structured).toMatchObject({ total: 41, offset: 2, next_offset: 3 });
  expect(page.text.split("\n")[0]).toBe('41 symbols matching "compose"; showing 3-3 (offset: 3 for the next ones):');
});

test("pages reach the best 1000 matches; past them the answer says to narrow the query", () => {
  const many = create(WorkspaceSymbolsAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript" },
    symbols: Array.from({ length: 1000 }, (_, i) => ({
      name: `item${i}`,
      kind: SymbolKind.VARIABLE,
      location: { file: "a.ts", range: { start: { line: i + 1, column: 1 } } },
    })),
    total: 5000,
  });
  const last = workspaceSymbolsAnswer(many, "item", 100, [], 900);
  expect(last.structured.symbols).toHaveLength(100);
  expect(last.structured.next_offset).toBeUndefined();
  expect(last.text.split("\n")[0]).toBe(
    '5000 symbols matching "item"; showing 901-1000 (the best 1000 are reachable; narrow the query for the rest):',
  );
});

test("an offset past the last symbol says so, with nothing after a colon", () => {
  const answer = create(WorkspaceSymbolsAnswerSchema, {
    status: { state: ServerState.READY, language: "python" },
    symbols: [],
    total: 369,
  });
  const { text, structured } = workspaceSymbolsAnswer(answer, "render", 3, [], 998);
  expect(text).toBe(
    '369 symbols matching "render"; offset 998 is past the last of the 369 reachable (offset 0 starts from the best)',
  );
  expect(structured).not.toHaveProperty("next_offset");
});
