import { create } from "@bufbuild/protobuf";
import { type DocumentSymbol, DocumentSymbolSchema, SymbolKind } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { contains, declaredAt, enclosingSymbol } from "./outline.js";

/** A symbol over lines start..end whose name is on `start`, column 3. */
function symbol(name: string, kind: SymbolKind, start: number, end: number, children: DocumentSymbol[] = []) {
  return create(DocumentSymbolSchema, {
    name,
    kind,
    range: { start: { line: start, column: 1 }, end: { line: end, column: 2 } },
    selectionRange: { start: { line: start, column: 3 }, end: { line: start, column: 3 + name.length } },
    children,
  });
}

const outline = [
  symbol("Greeter", SymbolKind.CLASS, 1, 12, [
    symbol("greet", SymbolKind.METHOD, 2, 5),
    symbol("farewell", SymbolKind.METHOD, 7, 11, [symbol("inner", SymbolKind.FUNCTION, 8, 9)]),
  ]),
  symbol("main", SymbolKind.FUNCTION, 14, 20),
];

test("the symbol declared at a name position, with its full range and name path", () => {
  const found = declaredAt(outline, { line: 8, column: 3 }, "inner");
  expect(found).toMatchObject({ path: "Greeter.farewell.inner", kind: "function" });
  expect(found?.symbol.range?.end?.line).toBe(9);
  // A name position a server spans differently: the innermost symbol of that name holding it.
  expect(declaredAt(outline, { line: 2, column: 9 }, "greet")?.path).toBe("Greeter.greet");
  expect(declaredAt(outline, { line: 30, column: 1 }, "greet")).toBeUndefined();
});

test("the innermost enclosing symbol; a symbol's own name belongs to what encloses it", () => {
  expect(enclosingSymbol(outline, { line: 8, column: 10 })?.path).toBe("Greeter.farewell.inner");
  expect(enclosingSymbol(outline, { line: 10, column: 1 })?.path).toBe("Greeter.farewell");
  expect(enclosingSymbol(outline, { line: 2, column: 4 })?.path).toBe("Greeter");
  expect(enclosingSymbol(outline, { line: 13, column: 1 })).toBeUndefined();
});

test("an unnamed callback, whose name range is its whole range, encloses what is in it", () => {
  const whole = { start: { line: 12, column: 11 }, end: { line: 15, column: 2 } };
  const callback = create(DocumentSymbolSchema, {
    name: "afterEach() callback",
    kind: SymbolKind.FUNCTION,
    range: whole,
    selectionRange: whole,
  });
  expect(enclosingSymbol([callback], { line: 14, column: 15 })?.path).toBe("afterEach() callback");
});

test("ranges hold their start, not their end", () => {
  const range = { start: { line: 2, column: 5 }, end: { line: 4, column: 1 } };
  expect(contains(range, { line: 2, column: 5 })).toBe(true);
  expect(contains(range, { line: 3, column: 99 })).toBe(true);
  expect(contains(range, { line: 4, column: 1 })).toBe(false);
  expect(contains(range, { line: 2, column: 4 })).toBe(false);
});

test("a function assigned to a property is found at the property's name, before its range", () => {
  // tsserver's outline of \`Signal.prototype.subscribe = function (fn) {…}\` spans the function (column 30).
  const subscribe = create(DocumentSymbolSchema, {
    name: "subscribe",
    kind: SymbolKind.FUNCTION,
    range: { start: { line: 427, column: 30 }, end: { line: 435, column: 2 } },
    selectionRange: { start: { line: 427, column: 30 }, end: { line: 427, column: 30 } },
  });
  expect(declaredAt([subscribe], { line: 427, column: 18 }, "subscribe")?.symbol.range?.end?.line).toBe(435);
  expect(declaredAt([subscribe], { line: 427, column: 18 }, "other")).toBeUndefined();
});
