import { expect, test } from "vitest";
import { startingAtName } from "./symbolNameRange.js";

const range = (line: number, column: number, endLine: number, endColumn: number) => ({
  start: { line, column },
  end: { line: endLine, column: endColumn },
});

test("a range starting before the name on its line starts at the name", () => {
  // tsserver: a later overload from the line's start; pyright: *args at the star.
  const lines = ["export function string(params?: string): ZodString;", "def f(*args, **kwargs): ..."];
  expect(startingAtName(lines, range(1, 1, 1, 53), "string")).toEqual(range(1, 17, 1, 23));
  expect(startingAtName(lines, range(2, 7, 2, 12), "args")).toEqual(range(2, 8, 2, 12));
  expect(startingAtName(lines, range(2, 14, 2, 22), "kwargs")).toEqual(range(2, 16, 2, 22));
  // A declaration's whole span (tsserver's workspace symbols) becomes the name's.
  expect(startingAtName(["export class ZodString {", "}"], range(1, 1, 2, 2), "ZodString")).toEqual(
    range(1, 14, 1, 23),
  );
});

test("columns count code points before the name", () => {
  const lines = ["/* 😀é */ export class Zöd {}"];
  expect(startingAtName(lines, range(1, 10, 1, 29), "Zöd")).toEqual(range(1, 23, 1, 26));
});

test("a range already at its name, a name not written there, or a part of a longer word is left alone", () => {
  const lines = ["  constructor(private x: number) {}", "const value = values[0];"];
  expect(startingAtName(lines, range(1, 3, 1, 14), "constructor")).toEqual(range(1, 3, 1, 14));
  expect(startingAtName(lines, range(1, 3, 1, 36), "(anonymous)")).toEqual(range(1, 3, 1, 36));
  expect(startingAtName(lines, range(2, 15, 2, 21), "value")).toEqual(range(2, 15, 2, 21));
  expect(startingAtName([], range(3, 1, 3, 2), "x")).toEqual(range(3, 1, 3, 2));
});
