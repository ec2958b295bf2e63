import { create } from "@bufbuild/protobuf";
import {
  type DocumentSymbol,
  DocumentSymbolSchema,
  DocumentSymbolsAnswerSchema,
  ReferencesAnswerSchema,
  ServerState,
  SymbolKind,
} from "@lspmesh/proto";
import { expect, test } from "vitest";
import { findReferencesTool } from "../tools/findReferences.js";
import { fakeToolCall } from "./fakeToolCall.js";
import { groupLines, groupReferences } from "./referenceGroups.js";
import type { LocationOutput } from "./shared.js";

function symbol(name: string, kind: SymbolKind, start: number, end: number, children: DocumentSymbol[] = []) {
  return create(DocumentSymbolSchema, {
    name,
    kind,
    range: { start: { line: start, column: 1 }, end: { line: end, column: 2 } },
    selectionRange: { start: { line: start, column: 7 }, end: { line: start, column: 7 + name.length } },
    children,
  });
}

const greeterOutline = [
  symbol("Greeter", SymbolKind.CLASS, 1, 10, [
    symbol("greet", SymbolKind.METHOD, 2, 4),
    symbol("wave", SymbolKind.METHOD, 6, 9),
  ]),
];

const at = (file: string, line: number, column = 5): LocationOutput => ({
  file,
  line,
  column,
  end_line: line,
  end_column: column + 4,
  snippet: `line ${line}`,
});

test("references under their innermost enclosing symbol, top level and unknown outlines apart, in first-seen order", () => {
  const groups = groupReferences(
    [
      at("src/g.ts", 3),
      at("src/main.ts", 1),
      at("src/g.ts", 7),
      at("src/g.ts", 8),
      at("src/g.ts", 3, 9),
      at("src/x.ts", 2),
    ],
    new Map([
      ["src/g.ts", { symbols: greeterOutline }],
      ["src/main.ts", { symbols: [] }],
      ["src/x.ts", { unknown: "its outline could not be read (NO_LANGUAGE_SERVER: none)" }],
    ]),
  );
  expect(
    groups.map(({ container, kind, file, line, references }) => [container, kind, file, line, references.length]),
  ).toEqual([
    ["Greeter.greet", "method", "src/g.ts", 2, 2],
    ["(top level)", "file", "src/main.ts", 1, 1],
    ["Greeter.wave", "method", "src/g.ts", 6, 2],
    ["(not grouped)", "unknown", "src/x.ts", 1, 1],
  ]);
  expect(groupLines(groups.slice(0, 2))).toEqual([
    "in Greeter.greet (src/g.ts:2):",
    "  src/g.ts:3:5\n    line 3",
    "  src/g.ts:3:9\n    line 3",
    "(top level) in src/main.ts:",
    "  src/main.ts:1:5\n    line 1",
  ]);
});

test("find_references group_by symbol: the page's files outlined, groups in the text and the structured answer", async () => {
  const location = (file: string, line: number, column = 5) => ({
    file,
    range: { start: { line, column }, end: { line, column: column + 5 } },
    snippet: "greet()",
  });
  const call = fakeToolCall({
    runner: {
      findReferences: () =>
        create(ReferencesAnswerSchema, {
          status: { state: ServerState.READY, language: "typescript" },
          locations: [location("src/g.ts", 2, 7), location("src/g.ts", 8), location("src/main.ts", 4)],
          total: 3,
        }),
      documentSymbols: (request: { file: string }) =>
        create(DocumentSymbolsAnswerSchema, { symbols: request.file === "src/g.ts" ? greeterOutline : [] }),
    },
  });
  const { text, structured } = await findReferencesTool.invoke(
    { file: "src/g.ts", line: 2, column: 7, group_by: "symbol" },
    call,
  );
  expect(call.asked.filter(({ method }) => method === "documentSymbols")).toHaveLength(2);
  expect(text).toBe(
    [
      "3 references to src/g.ts:2:7:",
      "in Greeter (src/g.ts:1):", // the declaration's own name belongs to its class
      "  src/g.ts:2:7\n    greet()",
      "in Greeter.wave (src/g.ts:6):",
      "  src/g.ts:8:5\n    greet()",
      "(top level) in src/main.ts:",
      "  src/main.ts:4:5\n    greet()",
    ].join("\n"),
  );
  const { locations, groups } = structured as { locations: unknown[]; groups: Array<{ container: string }> };
  expect(locations).toHaveLength(3);
  expect(groups.map(({ container }) => container)).toEqual(["Greeter", "Greeter.wave", "(top level)"]);
});
