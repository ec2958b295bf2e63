import { describe, expect, test } from "vitest";
import { RunnerError } from "../../errors.js";
import { findOnLine, locateSymbol } from "./symbolLocator.js";

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
