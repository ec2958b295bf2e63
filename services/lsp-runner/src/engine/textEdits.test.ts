import { expect, test } from "vitest";
import type { TextEdit } from "./answers.js";
import { applyTextEdits, changingEdits } from "./textEdits.js";

const edit = (line: number, column: number, endLine: number, endColumn: number, newText: string): TextEdit => ({
  range: { start: { line, column }, end: { line: endLine, column: endColumn } },
  newText,
});

test("columns count code points on lines with emoji, CJK and combining marks", () => {
  const text = 'const 名前 = "🎉x"; e\u0301 = 1;\nnext\n';
  // "🎉" is column 13 (one code point, two UTF-16 units); "x" is column 14.
  expect(applyTextEdits(text, [edit(1, 14, 1, 15, "y")], "a.ts")).toBe('const 名前 = "🎉y"; e\u0301 = 1;\nnext\n');
  expect(applyTextEdits(text, [edit(1, 7, 1, 9, "name")], "a.ts")).toBe('const name = "🎉x"; e\u0301 = 1;\nnext\n');
  // "e" + combining acute are two code points: columns 18 and 19.
  expect(applyTextEdits(text, [edit(1, 18, 1, 20, "é")], "a.ts")).toBe('const 名前 = "🎉x"; é = 1;\nnext\n');
});

test("CRLF and CR line breaks are kept and counted as one break", () => {
  expect(applyTextEdits("a\r\nb\rc\n", [edit(2, 1, 2, 2, "B"), edit(3, 1, 3, 2, "C")], "a.ts")).toBe("a\r\nB\rC\n");
  expect(applyTextEdits("a\r\nb", [edit(1, 2, 2, 1, " ")], "a.ts")).toBe("a b");
});

test("edits apply against the original text; inserts at one position keep their order", () => {
  const text = "one two three";
  expect(
    applyTextEdits(
      text,
      [edit(1, 9, 1, 14, "3"), edit(1, 1, 1, 4, "1"), edit(1, 5, 1, 5, "a"), edit(1, 5, 1, 5, "b")],
      "a.ts",
    ),
  ).toBe("1 abtwo 3");
});

test("the line after the last one, column 1, is the end of the text", () => {
  expect(applyTextEdits("x\n", [edit(1, 1, 3, 1, "")], "a.ts")).toBe("");
  expect(applyTextEdits("", [edit(1, 1, 1, 1, "new\n")], "a.ts")).toBe("new\n");
});

test("overlapping edits and positions outside the text are refused", () => {
  expect(() => applyTextEdits("abcdef", [edit(1, 1, 1, 4, "x"), edit(1, 3, 1, 5, "y")], "a.ts")).toThrow(/overlap/);
  expect(() => applyTextEdits("abc", [edit(1, 5, 1, 5, "x")], "a.ts")).toThrow(/past its end/);
  expect(() => applyTextEdits("abc", [edit(4, 1, 4, 1, "x")], "a.ts")).toThrow(/outside the file/);
  expect(() => applyTextEdits("abc", [edit(1, 3, 1, 2, "x")], "a.ts")).toThrow(/ends before/);
});

test("edits that rewrite a span as it is are no changes", () => {
  const text = "if (a) {\n  b();\n}\n";
  const same = edit(2, 1, 2, 3, "  ");
  const real = edit(2, 3, 2, 3, " ");
  expect(changingEdits(text, [same, real, edit(3, 1, 3, 2, "}")], "a.ts")).toEqual([real]);
});
