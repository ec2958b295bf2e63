import { describe, expect, test } from "vitest";
import type { DocumentSymbol } from "./answers.js";
import { findSymbolByPath, matchesPath, outlineEntries, qualifiedParts } from "./symbolLocation.js";

/** A symbol on `line` (its name at column 3), of LSP kind `kind` (5 class, 6 method, 11 interface, 12 function). */
const sym = (name: string, kind: number, line: number, children: DocumentSymbol[] = []): DocumentSymbol => {
  const range = { start: { line, column: 1 }, end: { line: line + 1, column: 2 } };
  return { name, detail: "", kind, range, selectionRange: { ...range, start: { line, column: 3 } }, children };
};

const outline = [
  sym("Greeter", 11, 2, [sym("greet", 6, 3)]),
  sym("PoliteGreeter", 5, 7, [sym("greet", 6, 8)]),
  sym("makeGreeting", 12, 14),
];
const entries = outlineEntries(outline);
const topLevel = outline.map((symbol) => symbol.name);
const find = (path: string) => findSymbolByPath(entries, path, "src/greeter.ts", topLevel);

describe("a symbol path", () => {
  test("matches the last names of the symbol's chain, never part of a name", () => {
    expect(matchesPath(["A", "B", "c"], "c")).toBe(true);
    expect(matchesPath(["A", "B", "c"], "B.c")).toBe(true);
    expect(matchesPath(["A", "B", "c"], "A.B.c")).toBe(true);
    expect(matchesPath(["A", "B", "c"], "A.c")).toBe(false);
    expect(matchesPath(["A", "xc"], "c")).toBe(false);
    // A name with a dot in it (module-style names) is matched whole.
    expect(matchesPath(["mod.sub"], "mod.sub")).toBe(true);
  });

  test("finds the one symbol a name or container path names", () => {
    expect(find("makeGreeting").names).toEqual(["makeGreeting"]);
    expect(find("PoliteGreeter.greet").symbol.selectionRange.start).toEqual({ line: 8, column: 3 });
  });

  test("several matches: INVALID_ARGUMENT listing each with its kind and line", () => {
    expect(() => find("greet")).toThrow(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        message:
          "'greet' names 2 symbols in src/greeter.ts: Greeter.greet (method, line 3), PoliteGreeter.greet (method, line 8); name it with its container, e.g. 'Greeter.greet'",
      }),
    );
  });

  test("a match holding the others (an assignment and its function, alike named) is the one meant", () => {
    // express: `exports.normalizeType = function normalizeType(type) {…}` outlines as both.
    const inner = sym("normalizeType", 12, 61);
    const assignment = {
      ...sym("normalizeType", 12, 61, [inner]),
      range: { start: { line: 61, column: 1 }, end: { line: 70, column: 2 } },
    };
    const nested = outlineEntries([assignment]);
    expect(findSymbolByPath(nested, "normalizeType", "lib/utils.js", ["normalizeType"]).names).toEqual([
      "normalizeType",
    ]);
    expect(findSymbolByPath(nested, "normalizeType.normalizeType", "lib/utils.js", ["normalizeType"]).names).toEqual([
      "normalizeType",
      "normalizeType",
    ]);
  });

  test("the same whole path twice cannot be told apart by name", () => {
    const twice = outlineEntries([sym("f", 12, 1), sym("f", 12, 4)]);
    expect(() => findSymbolByPath(twice, "f", "a.py", ["f", "f"])).toThrow(
      /share their whole path.*apply_workspace_edit/,
    );
  });

  test("no match: NOT_FOUND naming the file's top-level symbols and where the name is declared", () => {
    expect(() => find("nope")).toThrow(
      expect.objectContaining({
        code: "NOT_FOUND",
        message:
          "no symbol 'nope' in src/greeter.ts; its top-level symbols: Greeter, PoliteGreeter, makeGreeting; document_symbols shows its outline",
      }),
    );
    expect(() => find("Other.greet")).toThrow(
      "no symbol 'Other.greet' in src/greeter.ts; 'greet' is declared as Greeter.greet, PoliteGreeter.greet; its top-level symbols",
    );
  });

  test("the top-level list stops at 20 names; an empty outline and a loading server are said", () => {
    const many = Array.from({ length: 25 }, (_, i) => `s${i}`);
    expect(() => findSymbolByPath([], "x", "a.ts", many)).toThrow(/s18, s19, … \(5 more\); document_symbols/);
    expect(() => findSymbolByPath([], "x", "a.ts", [], "the python server is indexing")).toThrow(
      "no symbol 'x' in a.ts; the language server lists no symbols in it (the python server is indexing)",
    );
  });
});

describe("gopls method names", () => {
  // gopls outlines a method at the top level, named with its receiver: `(*Mux).Use`.
  const goOutline = [sym("Mux", 23, 21), sym("(*Mux).Use", 6, 100), sym("(Tree[K]).Len", 6, 120), sym("Use", 12, 140)];
  const goEntries = outlineEntries(goOutline);
  const findGo = (path: string) =>
    findSymbolByPath(
      goEntries,
      path,
      "mux.go",
      goOutline.map((symbol) => symbol.name),
    );

  test("match as the receiver's type and the method's name, as find_symbol names them", () => {
    expect(matchesPath(["(*Mux).Use"], "Mux.Use")).toBe(true);
    expect(matchesPath(["(*Mux).Use"], "(*Mux).Use")).toBe(true);
    expect(matchesPath(["(Mux).Use"], "(*Mux).Use")).toBe(true);
    expect(matchesPath(["(*Mux).Use"], "Use")).toBe(true);
    expect(matchesPath(["(Tree[K]).Len"], "Tree.Len")).toBe(true);
    expect(matchesPath(["(*Mux).Use"], "Tree.Use")).toBe(false);
    expect(matchesPath(["(*Mux).Use"], "ux.Use")).toBe(false);
    expect(findGo("Mux.Use").symbol.selectionRange.start.line).toBe(100);
    expect(findGo("(*Mux).Use").symbol.selectionRange.start.line).toBe(100);
    expect(findGo("Tree.Len").symbol.selectionRange.start.line).toBe(120);
  });

  test("a method and a function of the same name are ambiguous by the name alone", () => {
    expect(() => findGo("Use")).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});

describe("clangd's qualified names of out-of-line definitions", () => {
  test("split at :: outside template arguments", () => {
    expect(qualifiedParts("locale_ref::get")).toEqual(["locale_ref", "get"]);
    expect(qualifiedParts("formatter<std::nullptr_t, Char>::format")).toEqual([
      "formatter<std::nullptr_t, Char>",
      "format",
    ]);
    expect(qualifiedParts("is_integral<fmt::detail::uint128_t>")).toEqual(["is_integral<fmt::detail::uint128_t>"]);
    expect(qualifiedParts("operator<<")).toEqual(["operator<<"]);
    expect(qualifiedParts("::global")).toEqual(["::global"]);
  });

  test("a method defined outside its class is found by its name, Class.name and Class::name", () => {
    const at = (line: number) => ({ start: { line, column: 1 }, end: { line: line + 2, column: 2 } });
    const symbol = (name: string, line: number, children: DocumentSymbol[] = []): DocumentSymbol => ({
      name,
      kind: 6,
      detail: "",
      range: at(line),
      selectionRange: at(line),
      children,
    });
    const outline = outlineEntries([
      symbol("v12", 1, [symbol("locale_ref::get", 75), symbol("file_base", 1500, [symbol("get", 1517)])]),
    ]);
    for (const path of ["locale_ref::get", "locale_ref.get", "v12.locale_ref.get"]) {
      expect(findSymbolByPath(outline, path, "format-inl.h", ["v12"]).symbol.range.start.line).toBe(75);
    }
    expect(() => findSymbolByPath(outline, "get", "format-inl.h", ["v12"])).toThrow(
      "'get' names 2 symbols in format-inl.h: v12.locale_ref.get (method, line 75), v12.file_base.get (method, line 1517)",
    );
  });
});
