import { create } from "@bufbuild/protobuf";
import { DocumentSymbolsAnswerSchema, ServerState, SymbolKind } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { TEXT_BUDGET, withinBudget } from "../text.js";
import { documentSymbolsAnswer, OUTLINE_NARROW } from "./documentSymbols.js";

function range(startLine: number, startColumn: number, endLine: number, endColumn: number) {
  return { start: { line: startLine, column: startColumn }, end: { line: endLine, column: endColumn } };
}

test("the outline is indented by nesting, with kind, name, name position and extent", () => {
  const answer = create(DocumentSymbolsAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript" },
    symbols: [
      {
        name: "Grüßer",
        kind: SymbolKind.CLASS,
        range: range(3, 1, 10, 2),
        selectionRange: range(3, 14, 3, 20),
        children: [
          { name: "name", kind: SymbolKind.PROPERTY, range: range(4, 3, 4, 16), selectionRange: range(4, 3, 4, 7) },
          {
            name: "grüß",
            kind: SymbolKind.METHOD,
            detail: "(name: string) => string",
            range: range(6, 3, 8, 4),
            selectionRange: range(6, 3, 6, 7),
          },
        ],
      },
      { name: "MAX", kind: SymbolKind.ENUM_MEMBER, range: range(12, 1, 12, 9), selectionRange: range(12, 1, 12, 4) },
    ],
  });
  const { text, structured } = documentSymbolsAnswer(answer, "src/grüßer.ts");
  expect(text).toBe(
    [
      "Outline of src/grüßer.ts (4 symbols):",
      "class Grüßer  3:14 (lines 3-10)",
      "  property name  4:3",
      "  method grüß: (name: string) => string  6:3 (lines 6-8)",
      "enum member MAX  12:1",
    ].join("\n"),
  );
  expect(structured.symbols[0]).toMatchObject({
    name: "Grüßer",
    kind: "class",
    line: 3,
    column: 14,
    range: { line: 3, column: 1, end_line: 10, end_column: 2 },
  });
  expect(structured.symbols[0]?.children?.[1]).toMatchObject({ kind: "method", detail: "(name: string) => string" });
  expect(structured.symbols[1]).toMatchObject({ kind: "enum_member" });
  expect(structured.symbols[1]).not.toHaveProperty("children");
});

test("an empty outline: plain from a ready server, not-ready wording while indexing", () => {
  const ready = create(DocumentSymbolsAnswerSchema, { status: { state: ServerState.READY } });
  expect(documentSymbolsAnswer(ready, "src/empty.ts").text).toBe("No symbols in src/empty.ts.");
  const indexing = create(DocumentSymbolsAnswerSchema, {
    status: { state: ServerState.INDEXING, language: "python", partial: true, note: "indexing 40%" },
  });
  expect(documentSymbolsAnswer(indexing, "a.py").text).toBe(
    "No results yet: the python server is indexing; try again shortly. (indexing 40%)",
  );
});

test("a large outline cut at the text budget points at what shows a part, not at arguments document_symbols refuses", () => {
  const symbols = Array.from({ length: 800 }, (_, i) => ({
    name: `function_number_${i}`,
    kind: SymbolKind.FUNCTION,
    detail: "auto (format_string<T...>, T &&...) -> std::string",
    range: range(i + 1, 1, i + 1, 40),
    selectionRange: range(i + 1, 6, i + 1, 20),
  }));
  const answer = create(DocumentSymbolsAnswerSchema, {
    status: { state: ServerState.READY, language: "cpp" },
    symbols,
  });
  const cut = withinBudget(documentSymbolsAnswer(answer, "include/fmt/format.h").text, TEXT_BUDGET, OUTLINE_NARROW);
  const last = cut.split("\n").at(-1)!;
  expect(last).toMatch(/more lines not shown: .*structuredContent has everything; or see a part: find_symbol/);
  expect(last).not.toMatch(/limit|offset/);
});
