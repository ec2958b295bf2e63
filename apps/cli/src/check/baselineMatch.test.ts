import { describe, expect, test } from "vitest";
import { anchorAt, anchorFindings, fingerprints, splitLines } from "./anchors.js";
import { compareWithBase } from "./baselineMatch.js";
import type { Finding } from "./findings.js";

function finding(line: number, message = "Type 'string' is not assignable to type 'number'.", code = "2322"): Finding {
  return {
    file: "src/a.ts",
    line,
    column: 14,
    endLine: line,
    endColumn: 15,
    severity: "error",
    code,
    source: "typescript",
    message,
  };
}

const BASE = ["import x from './x';", "", "export const n: number = 'x';", "export const ok = 1;"];

describe("line anchors", () => {
  test("ignore indentation and blank lines around, not the neighbours' text", () => {
    const shifted = [
      "// new comment",
      "import x from './x';",
      "",
      "",
      "    export const n: number = 'x';",
      "export const ok = 1;",
    ];
    expect(anchorAt(shifted, 5)).toEqual(anchorAt(BASE, 3));
    const neighbourEdited = ["import y from './y';", "", "export const n: number = 'x';", "export const ok = 1;"];
    expect(anchorAt(neighbourEdited, 3).text).toBe(anchorAt(BASE, 3).text);
    expect(anchorAt(neighbourEdited, 3).context).not.toBe(anchorAt(BASE, 3).context);
  });

  test("lines outside the file anchor to empty text; CRLF and CR split like LF", () => {
    expect(anchorAt(BASE, 99).text).toBe("");
    expect(splitLines("a\r\nb\rc\nd")).toEqual(["a", "b", "c", "d"]);
  });

  test("fingerprints survive line shifts and number duplicates", () => {
    const before = fingerprints(anchorFindings([finding(3)], BASE));
    const shifted = ["// one", "// two", ...BASE];
    expect(fingerprints(anchorFindings([finding(5)], shifted))).toEqual(before);
    const twice = fingerprints(anchorFindings([finding(3), finding(3)], BASE));
    expect(twice[0]).toMatch(/:1$/);
    expect(twice[1]).toBe(twice[0]!.replace(/:1$/, ":2"));
  });
});

describe("introduced vs existing", () => {
  test("an old error moved down by inserted lines is unchanged, not new", () => {
    const head = ["// added", "// added", ...BASE];
    const result = compareWithBase(anchorFindings([finding(5)], head), anchorFindings([finding(3)], BASE));
    expect(result.new).toEqual([]);
    expect(result.fixed).toEqual([]);
    expect(result.unchanged.map(({ head, base }) => [head.finding.line, base.finding.line])).toEqual([[5, 3]]);
  });

  test("a new error is new, a removed one is fixed", () => {
    const head = [...BASE, "export const m: number = 'y';"];
    const result = compareWithBase(
      anchorFindings([finding(5)], head),
      anchorFindings([finding(3), finding(4, "Something else.", "9999")], BASE),
    );
    expect(result.new.map((f) => f.finding.line)).toEqual([5]);
    expect(result.fixed.map((f) => f.finding.code).sort()).toEqual(["2322", "9999"]);
  });

  test("the same message on an edited line is new (the line text is part of the identity)", () => {
    const head = ["import x from './x';", "", "export const n: number = 'changed';", "export const ok = 1;"];
    const result = compareWithBase(anchorFindings([finding(3)], head), anchorFindings([finding(3)], BASE));
    expect(result.new).toHaveLength(1);
    expect(result.fixed).toHaveLength(1);
  });

  test("a copied line keeps the original unchanged and makes the copy new", () => {
    const head = [
      "import x from './x';",
      "",
      "export const n: number = 'x';",
      "export const ok = 1;",
      "",
      "// copy:",
      "export const n: number = 'x';",
    ];
    const result = compareWithBase(anchorFindings([finding(3), finding(7)], head), anchorFindings([finding(3)], BASE));
    expect(result.unchanged.map(({ head }) => head.finding.line)).toEqual([3]);
    expect(result.new.map((f) => f.finding.line)).toEqual([7]);
  });

  test("an old error whose neighbours were edited still pairs (second pass on line text)", () => {
    const head = ["import y from './y';", "const extra = 2;", "export const n: number = 'x';", "export const ok = 1;"];
    const result = compareWithBase(anchorFindings([finding(3)], head), anchorFindings([finding(3)], BASE));
    expect(result.new).toEqual([]);
    expect(result.unchanged).toHaveLength(1);
  });
});
