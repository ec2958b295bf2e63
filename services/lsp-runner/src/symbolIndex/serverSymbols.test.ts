import { expect, test } from "vitest";
import type { DocumentSymbol } from "../engine/answers.js";
import { serverSymbols } from "./serverSymbols.js";

/** LSP SymbolKind numbers. */
const STRUCT = 23;
const METHOD = 6;
const FIELD = 8;

function symbol(
  name: string,
  kind: number,
  line: number,
  column: number,
  children: DocumentSymbol[] = [],
): DocumentSymbol {
  const range = { start: { line, column }, end: { line, column: column + name.length } };
  return { name, detail: "", kind, range, selectionRange: range, children };
}

const lines = [
  "type Command struct {",
  "\tUse string",
  "}",
  "func (c *Command) Execute() error {",
  "func (c *Command) run() {",
];

test("gopls's receiver methods are indexed under their own name, their type as container, exported by that name", () => {
  const indexed = serverSymbols(
    "go",
    [
      symbol("Command", STRUCT, 1, 6, [symbol("Use", FIELD, 2, 2)]),
      symbol("(*Command).Execute", METHOD, 4, 19),
      symbol("(*Command).run", METHOD, 5, 19),
    ],
    lines,
  );
  expect(indexed.map(({ name, kind, container, exported }) => ({ name, kind, container, exported }))).toEqual([
    { name: "Command", kind: "struct", container: undefined, exported: true },
    { name: "Use", kind: "field", container: "Command", exported: false },
    { name: "Execute", kind: "method", container: "Command", exported: true },
    { name: "run", kind: "method", container: "Command", exported: false },
  ]);
  expect(indexed[2]).toMatchObject({ line: 4, column: 19, snippet: "func (c *Command) Execute() error {" });
});

test("C/C++ #define macros are indexed (clangd's documentSymbol leaves them out), as the kind its workspace symbols give", () => {
  const header = [
    "#ifndef READ_H",
    "#define READ_H",
    "#define REDIS_REPLY_STRING 1",
    "  # define  MAX(a, b) ((a) > (b))",
    "int read(void);",
  ];
  const indexed = serverSymbols("cpp", [symbol("read", 12, 5, 5)], header);
  expect(indexed.map((s) => [s.name, s.kind, s.line, s.column])).toEqual([
    ["read", "function", 5, 5],
    ["READ_H", "string", 2, 9],
    ["REDIS_REPLY_STRING", "string", 3, 9],
    ["MAX", "string", 4, 13],
  ]);
  // Other languages' lines are not read for macros.
  expect(serverSymbols("python", [], ["#define X 1"])).toEqual([]);
});
