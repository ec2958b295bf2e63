import { describe, expect, test } from "vitest";
import { lineBreakOf, nameOnlyDeclaration, type SymbolEditMode, symbolTextEdit } from "./symbolEditText.js";
import { applyTextEdits } from "./textEdits.js";

// A method on lines 2-4 (its range starts at column 3, after its indentation).
const source = "class A {\n  m(): number {\n    return 1;\n  }\n  n() {}\n}\n";
const method = { start: { line: 2, column: 3 }, end: { line: 4, column: 4 } };
const edited = (mode: SymbolEditMode, text: string, range = method, content = source) => {
  const edit = symbolTextEdit(mode, content.split(/\r\n|\r|\n/), range, text, lineBreakOf(content));
  return applyTextEdits(content, [edit], "a.ts");
};

describe("replace", () => {
  test("a first line without indentation keeps the symbol's", () => {
    expect(edited("replace", "m(): string {\n    return 'x';\n  }")).toBe(
      "class A {\n  m(): string {\n    return 'x';\n  }\n  n() {}\n}\n",
    );
  });

  test("an indented first line replaces the indentation too", () => {
    expect(edited("replace", "    m() {}")).toBe("class A {\n    m() {}\n  n() {}\n}\n");
  });

  test("after other text on the line the range is replaced as it is", () => {
    const line = "const a = 1, b = 2;\n";
    expect(edited("replace", " c = 3", { start: { line: 1, column: 14 }, end: { line: 1, column: 19 } }, line)).toBe(
      "const a = 1,  c = 3;\n",
    );
  });
});

describe("replace when words precede the symbol on its line", () => {
  // gopls starts a type's range at its name, after `type`.
  const go = "package p\n\ntype Group struct {\n\tID string\n}\n";
  const group = { start: { line: 3, column: 6 }, end: { line: 5, column: 2 } };

  test("a text repeating them replaces them too", () => {
    expect(edited("replace", "type Group struct {\n\tName string\n}", group, go)).toBe(
      "package p\n\ntype Group struct {\n\tName string\n}\n",
    );
    const indented = "class A {\n  export m() {}\n}\n";
    expect(
      edited(
        "replace",
        "export m() { return 1; }",
        { start: { line: 2, column: 10 }, end: { line: 2, column: 16 } },
        indented,
      ),
    ).toBe("class A {\n  export m() { return 1; }\n}\n");
  });

  test("a text without them keeps them", () => {
    expect(edited("replace", "Group struct{}", group, go)).toBe("package p\n\ntype Group struct{}\n");
    expect(edited("replace", "typed struct{}", group, go)).toBe("package p\n\ntype typed struct{}\n");
  });
});

describe("replace when the text ends with what follows the symbol on its line", () => {
  // typescript-language-server's range of `exports.normalizeType = function (type) {…};` stops before the `;`.
  const js = "exports.normalizeType = function (type) {\n  return type;\n};\nexports.x = 1;\n";
  const assignment = { start: { line: 1, column: 1 }, end: { line: 3, column: 2 } };

  test("a text ending with the `;` replaces it too: no `;;`", () => {
    expect(edited("replace", "exports.normalizeType = function (type) {\n  return { type };\n};", assignment, js)).toBe(
      "exports.normalizeType = function (type) {\n  return { type };\n};\nexports.x = 1;\n",
    );
  });

  test("a text without it leaves it", () => {
    expect(edited("replace", "exports.normalizeType = null", assignment, js)).toBe(
      "exports.normalizeType = null;\nexports.x = 1;\n",
    );
  });
});

describe("insert", () => {
  test("before: at column 1 of the symbol's first line, a line break added", () => {
    expect(edited("insertBefore", "  // m")).toBe(
      "class A {\n  // m\n  m(): number {\n    return 1;\n  }\n  n() {}\n}\n",
    );
    expect(edited("insertBefore", "  // m\n")).toBe(edited("insertBefore", "  // m"));
  });

  test("after: on its own line after the symbol's last line, one trailing break dropped", () => {
    expect(edited("insertAfter", "  o() {}\n")).toBe(
      "class A {\n  m(): number {\n    return 1;\n  }\n  o() {}\n  n() {}\n}\n",
    );
    expect(edited("insertAfter", "  o() {}")).toBe(edited("insertAfter", "  o() {}\n"));
  });

  test("after a range ending at column 1 of the next line, after the line before it", () => {
    const range = { start: { line: 2, column: 3 }, end: { line: 5, column: 1 } };
    expect(edited("insertAfter", "  o() {}", range)).toBe(edited("insertAfter", "  o() {}"));
  });

  test("at the end of a file without a final line break", () => {
    expect(
      edited("insertAfter", "f();", { start: { line: 1, column: 1 }, end: { line: 1, column: 6 } }, "g();\nh()"),
    ).toBe("g();\nf();\nh()");
  });

  test("line breaks in the text are written as the file's own", () => {
    const crlf = "a();\r\nb();\r\n";
    expect(
      edited("insertBefore", "x();\ny();", { start: { line: 2, column: 1 }, end: { line: 2, column: 5 } }, crlf),
    ).toBe("a();\r\nx();\r\ny();\r\nb();\r\n");
  });
});

describe("a declaration whose range is only its name", () => {
  const at = (line: number, column: number, end: number) => ({
    start: { line, column },
    end: { line, column: end },
  });
  const nameOnly = (line: number, column: number, end: number) => ({
    range: at(line, column, end),
    selectionRange: at(line, column, end),
  });

  test("pyright's variables: the value after the name is not in the range, so edits of it are refused", () => {
    // Textualize/rich: rich/_spinners.py and rich/console.py.
    const lines = ["SPINNERS = {", '    "dots": {},', "}", "RenderResult = Iterable[Segment]", "    width: int = 80"];
    expect(nameOnlyDeclaration(lines, nameOnly(1, 1, 9))).toBe(true);
    expect(nameOnlyDeclaration(lines, nameOnly(4, 1, 13))).toBe(true);
    expect(nameOnlyDeclaration(lines, nameOnly(5, 5, 10))).toBe(true);
  });

  test("a whole declaration, or a name that is all of it, is kept", () => {
    const lines = ["enum E {", "  A,", "  B = 1,", "}", "if x == 1:", "total: number = 1;"];
    expect(nameOnlyDeclaration(lines, nameOnly(2, 3, 4))).toBe(false);
    // Not an assignment: a comparison follows.
    expect(nameOnlyDeclaration(["x == 1"], nameOnly(1, 1, 2))).toBe(false);
    // typescript-language-server's declarator range runs past the name.
    expect(nameOnlyDeclaration(lines, { range: at(6, 1, 18), selectionRange: at(6, 1, 6) })).toBe(false);
  });
});
