import { describe, expect, test } from "vitest";
import { splitLines, stripBom } from "../documents/textDocument.js";
import {
  codePointLength,
  codePointsToUnits,
  fromLspPosition,
  type PositionEncoding,
  toLspPosition,
  unitsToCodePoints,
} from "./positionEncoding.js";

const ENCODINGS: PositionEncoding[] = ["utf-8", "utf-16", "utf-32"];
const LINES = [
  "plain ascii line",
  'const 挨拶 = "こんにちは"; greet()',
  "emoji 🎉🌍 then name",
  "combining e\u0301 and a\u0308 marks x",
  "\ttabs\t\tand\tname",
  "👨‍👩‍👧 family zwj sequence y",
  "",
];

describe("code point ⇄ encoding units", () => {
  test("known offsets for astral and CJK characters", () => {
    const line = "a🎉b挨c";
    // code points: a 🎉 b 挨 c
    expect(codePointsToUnits(line, 2, "utf-16")).toBe(3);
    expect(codePointsToUnits(line, 2, "utf-8")).toBe(5);
    expect(codePointsToUnits(line, 2, "utf-32")).toBe(2);
    expect(codePointsToUnits(line, 4, "utf-8")).toBe(9);
    expect(unitsToCodePoints(line, 3, "utf-16")).toBe(2);
    expect(unitsToCodePoints(line, 9, "utf-8")).toBe(4);
  });

  test("an offset inside a surrogate pair counts as the start of that character", () => {
    expect(unitsToCodePoints("🎉x", 1, "utf-16")).toBe(0);
  });

  test("offsets past the end of a line clamp to the line length", () => {
    expect(codePointsToUnits("abc", 10, "utf-16")).toBe(3);
    expect(unitsToCodePoints("abc", 10, "utf-8")).toBe(3);
  });

  for (const encoding of ENCODINGS) {
    test(`every column of every line round-trips through ${encoding}`, () => {
      for (const [index, text] of LINES.entries()) {
        for (let column = 1; column <= codePointLength(text) + 1; column++) {
          const position = { line: index + 1, column };
          const lsp = toLspPosition(LINES, position, encoding);
          expect(fromLspPosition(LINES, lsp, encoding)).toEqual(position);
        }
      }
    });
  }

  test("utf-16 offsets agree with JavaScript string indices", () => {
    for (const text of LINES) {
      let column = 0;
      let index = 0;
      for (const char of text) {
        expect(codePointsToUnits(text, column, "utf-16")).toBe(index);
        index += char.length;
        column++;
      }
    }
  });

  test("utf-8 offsets agree with Buffer byte lengths", () => {
    for (const text of LINES) {
      const chars = [...text];
      for (let column = 0; column <= chars.length; column++) {
        expect(codePointsToUnits(text, column, "utf-8")).toBe(Buffer.byteLength(chars.slice(0, column).join("")));
      }
    }
  });
});

describe("document text", () => {
  test("CRLF, CR and LF all end lines; a BOM is not part of the text", () => {
    const text = stripBom("\uFEFFone\r\ntwo\rthree\nfour");
    expect(splitLines(text)).toEqual(["one", "two", "three", "four"]);
    expect(toLspPosition(splitLines(text), { line: 1, column: 1 }, "utf-16")).toEqual({ line: 0, character: 0 });
  });
});
