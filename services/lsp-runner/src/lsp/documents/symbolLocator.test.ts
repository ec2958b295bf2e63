import { describe, expect, test } from "vitest";
import { RunnerError } from "../../errors.js";
import { findOnLine, locateSymbol, outsideStrings, tripleQuotedLines } from "./symbolLocator.js";

const LINES = [
  "import { greet } from '../greet';", // 1
  "const greeting = greet('a') + greet('b');", // 2
  "", // 3
  'const 挨拶 = "🎉"; greet(挨拶);', // 4
];

test("matches only on word boundaries", () => {
  expect(findOnLine("greeting = greet(greet2) + greet", "greet")).toEqual([12, 28]);
});

test("columns count code points on non-ASCII lines", () => {
  expect(locateSymbol(LINES, { name: "greet", lineHint: 4 }, "a.ts")).toEqual({ line: 4, column: 17 });
  expect(locateSymbol(LINES, { name: "挨拶", lineHint: 4, occurrence: 2 }, "a.ts")).toEqual({ line: 4, column: 23 });
});

test("the hinted line wins, then the nearest lines", () => {
  expect(locateSymbol(LINES, { name: "greet", lineHint: 2, occurrence: 2 }, "a.ts")).toEqual({ line: 2, column: 31 });
  expect(locateSymbol(LINES, { name: "greet", lineHint: 3 }, "a.ts")).toEqual({ line: 4, column: 17 });
  expect(locateSymbol(LINES, { name: "greeting" }, "a.ts")).toEqual({ line: 2, column: 7 });
});

test("a missing symbol or occurrence is SYMBOL_NOT_FOUND with a hint", () => {
  const missing = () => locateSymbol(LINES, { name: "nothere", lineHint: 2 }, "a.ts");
  expect(missing).toThrow(RunnerError);
  expect(missing).toThrow(/not found within 50 lines of line 2/);
  expect(() => locateSymbol(LINES, { name: "greet", lineHint: 2, occurrence: 3 }, "a.ts")).toThrow(
    /lower 'occurrence'/,
  );
});

describe("a symbol with a column hint", () => {
  const lines = ["const a = greet(greet);", "", "function greet() {}"];

  test("the column is used when the symbol stands there (any column inside it)", () => {
    expect(locateSymbol(lines, { name: "greet", lineHint: 1, columnHint: 19 }, "a.ts")).toEqual({
      line: 1,
      column: 19,
    });
    expect(locateSymbol(lines, { name: "greet", lineHint: 1, columnHint: 11 }, "a.ts")).toEqual({
      line: 1,
      column: 11,
    });
  });

  test("otherwise the symbol is searched near the line as without a column", () => {
    expect(locateSymbol(lines, { name: "greet", lineHint: 1, columnHint: 3 }, "a.ts")).toEqual({ line: 1, column: 11 });
    expect(locateSymbol(lines, { name: "greet", lineHint: 2, columnHint: 1 }, "a.ts")).toEqual({ line: 3, column: 10 });
  });
});

describe("around a line hint, comment lines come last", () => {
  // As lodash.js: a doc comment's example above the declaration.
  const lines = [
    "    /**",
    "     * @example",
    "     *",
    "     * _.chunk(['a', 'b', 'c', 'd'], 2);",
    "     * // => [['a', 'b'], ['c', 'd']]",
    "     */",
    "    function chunk(array, size) {",
    "      // chunk it",
    "    }",
  ];

  test("a hint a few lines off the declaration lands on it, not on the name in the comment nearer", () => {
    expect(locateSymbol(lines, { name: "chunk", lineHint: 5 }, "lodash.js")).toEqual({ line: 7, column: 14 });
    expect(locateSymbol(lines, { name: "chunk", lineHint: 9 }, "lodash.js")).toEqual({ line: 7, column: 14 });
  });

  test("the hinted line itself is taken even when it is a comment", () => {
    expect(locateSymbol(lines, { name: "chunk", lineHint: 4 }, "lodash.js")).toEqual({ line: 4, column: 10 });
  });

  test("a name found only in comments is still found", () => {
    const only = ["# the greet helper", "x = 1", "// greet later"];
    expect(locateSymbol(only, { name: "greet", lineHint: 2 }, "a.py")).toEqual({ line: 3, column: 4 });
  });

  test("C's #define is code, not a comment", () => {
    const c = ["# define NOTHING", "#define LIMIT 10", "int x;", "// LIMIT is 10"];
    expect(locateSymbol(c, { name: "LIMIT", lineHint: 3 }, "a.c")).toEqual({ line: 2, column: 9 });
  });
});

test("without a hint, the first mention in code comes before one in a doc comment above it", () => {
  // As cobra.go: the doc comment names the function on the line above its declaration.
  const go = [
    "package cobra",
    "",
    "// CheckErr prints the msg with the prefix 'Error:' and exits.",
    "func CheckErr(msg interface{}) {",
    "}",
  ];
  expect(locateSymbol(go, { name: "CheckErr" }, "cobra.go")).toEqual({ line: 4, column: 6 });
  const onlyComments = ["// CheckErr is gone", "package cobra"];
  expect(locateSymbol(onlyComments, { name: "CheckErr" }, "cobra.go")).toEqual({ line: 1, column: 4 });
});

describe("Python docstrings come after code, as comments do", () => {
  // As Textualize/rich's rich/text.py: the class's docstring names it on the line below.
  const text = [
    "class Text(JupyterMixin):", // 1
    '    """Text with color / style.', // 2
    "", // 3
    "    Args:", // 4
    '        text (str, optional): Default unstyled text. Defaults to "".', // 5
    '    """', // 6
    "", // 7
    '    x = """Text""" + f"Text"', // 8
    "    def copy(self) -> Text:", // 9
    "        r'''Text in a raw docstring'''", // 10
    "        return Text()", // 11
  ];

  test("a hint just below the declaration lands on it, not on the docstring nearer", () => {
    expect(locateSymbol(text, { name: "Text", lineHint: 3 }, "rich/text.py")).toEqual({ line: 1, column: 7 });
    expect(locateSymbol(text, { name: "Text", lineHint: 4 }, "rich/text.py")).toEqual({ line: 1, column: 7 });
  });

  test("the hinted docstring line itself is still taken, and a name only in a docstring is found", () => {
    expect(locateSymbol(text, { name: "Text", lineHint: 2 }, "rich/text.py")).toEqual({ line: 2, column: 8 });
    expect(locateSymbol(text, { name: "unstyled", lineHint: 1 }, "rich/text.py")).toEqual({ line: 5, column: 39 });
    expect(locateSymbol(text, { name: "Text", lineHint: 10 }, "rich/text.py")).toEqual({ line: 10, column: 13 });
  });

  test("prose lines: a docstring's lines and its first, not code that holds a one-line string", () => {
    expect([...tripleQuotedLines(text)]).toEqual([2, 3, 4, 5, 6, 10]);
    // A ''' inside a """ string does not close it.
    expect([...tripleQuotedLines(['x = """a', "b ''' c", '"""', "y = 1"])]).toEqual([2, 3]);
  });
});

describe("without an occurrence, a match in code comes before one in a string", () => {
  const lines = ['\tt.Errorf("ClientIP: want %q, got %q", want, got) // 🎉 got', "x := `got` + 'got'"];

  test("the variable after the format string, not the word inside it", () => {
    expect(locateSymbol(lines, { name: "got", lineHint: 1 }, "f.go")).toEqual({ line: 1, column: 46 });
    expect(locateSymbol(lines, { name: "got", lineHint: 1, occurrence: 1 }, "f.go")).toEqual({ line: 1, column: 31 });
  });

  test("every match quoted: the first", () => {
    expect(locateSymbol(lines, { name: "got", lineHint: 2 }, "f.go")).toEqual({ line: 2, column: 7 });
  });

  test("escaped quotes stay inside their string", () => {
    expect(outsideStrings('s := "a \\" got" + got', [12, 19])).toBe(19);
    expect(outsideStrings("'it''s' name", [9])).toBe(9);
  });
});
