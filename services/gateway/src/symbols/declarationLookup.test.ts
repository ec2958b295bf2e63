import { describe, expect, test } from "vitest";
import { indexed, tenantIndex } from "../mcp/toolSupport/fakeToolCall.js";
import {
  addLiveDeclaration,
  type DeclarationFilters,
  DeclarationMatches,
  findIndexedDeclarations,
  parseNameQuery,
  resolveName,
  undecidedTextLanguages,
} from "./declarationLookup.js";
import { MATCH } from "./symbolMatch.js";

const index = tenantIndex({
  default: {
    "src/greeter.ts": [
      indexed("Greeter", "class", 1, { exported: true }),
      indexed("greet", "method", 2, { container: "Greeter" }),
      indexed("greeting", "property", 3, { container: "Greeter" }),
    ],
    "src/util/greet.ts": [
      indexed("greet", "function", 1, { exported: true }),
      indexed("GREET", "constant", 5),
      indexed("render", "method", 9, { container: "Page" }),
    ],
    "src/ns.ts": [
      indexed("shop", "namespace", 1),
      indexed("Page", "class", 2, { container: "shop" }),
      indexed("render", "method", 3, { container: "Page" }),
    ],
    "scripts/build.lua": [indexed("greet", "text", 4)],
  },
});
const views = [...index.workspaces].map(([workspace, view]) => ({ workspace, view }));

function find(name: string, filters: DeclarationFilters = {}) {
  return findIndexedDeclarations(views, parseNameQuery(name), filters);
}

const described = (matches: DeclarationMatches) =>
  matches.page(0, 100).map(({ file, symbol, match }) => `${match} ${symbol.container ?? ""}.${symbol.name} ${file}`);

describe("finding declarations by name", () => {
  test("exact names first, then the same ignoring case, then names starting so; text matches are no declarations", () => {
    expect(described(find("greet"))).toEqual([
      "0 .greet src/util/greet.ts", // exported, a function: before the method
      "0 Greeter.greet src/greeter.ts",
      "1 .GREET src/util/greet.ts",
      "2 Greeter.greeting src/greeter.ts",
      "3 .Greeter src/greeter.ts",
    ]);
  });

  test("a name with dots of its own matches a dotted query only whole, never as a prefix", () => {
    // tsserver names callbacks by the call they are passed to: `route.dispatch() callback`.
    const callbacks = tenantIndex({
      default: {
        "test/Route.js": [indexed("route.dispatch() callback", "function", 39, { container: "it('…') callback" })],
        "lib/handlers.js": [indexed("exports.handler", "function", 3)],
      },
    });
    const found = (name: string) =>
      described(
        findIndexedDeclarations(
          [...callbacks.workspaces].map(([workspace, view]) => ({ workspace, view })),
          parseNameQuery(name),
          {},
        ),
      );
    expect(found("Route.dispatch")).toEqual([]);
    expect(found("exports.handler")).toEqual(["0 .exports.handler lib/handlers.js"]);
  });

  test("a name path matches the container; an outer container is checked in the same file", () => {
    expect(described(find("Greeter.greet"))).toEqual([
      "0 Greeter.greet src/greeter.ts",
      "2 Greeter.greeting src/greeter.ts",
    ]);
    expect(described(find("greeter.GREET"))).toEqual([
      "1 Greeter.greet src/greeter.ts",
      "3 Greeter.greeting src/greeter.ts",
    ]);
    expect(described(find("Page.render"))).toHaveLength(2);
    expect(described(find("shop.Page.render"))).toEqual(["0 Page.render src/ns.ts"]);
  });

  test("kind and file filters", () => {
    expect(described(find("greet", { kinds: new Set(["method"]) }))).toEqual(["0 Greeter.greet src/greeter.ts"]);
    expect(described(find("greet", { file: (file) => file.startsWith("src/util/") }))).toEqual([
      "0 .greet src/util/greet.ts",
      "1 .GREET src/util/greet.ts",
    ]);
  });

  test("pages are taken in rank order across match classes", () => {
    const matches = find("greet");
    expect(matches.total).toBe(5);
    expect(matches.page(1, 2).map(({ symbol }) => symbol.name)).toEqual(["greet", "GREET"]);
    expect(matches.page(3, 10).map(({ symbol }) => symbol.name)).toEqual(["greeting", "Greeter"]);
  });

  test("a Go receiver, (*Mux).Handle or (Tree[K]).Len, names the method's type as its container", () => {
    expect(parseNameQuery("(*Mux).Handle")).toEqual({ text: "(*Mux).Handle", name: "Handle", containers: ["Mux"] });
    expect(parseNameQuery("(Tree[K]).Len").containers).toEqual(["Tree"]);
    expect(parseNameQuery("chi.(*Mux).Handle").containers).toEqual(["chi", "Mux"]);
    const matches = new DeclarationMatches();
    const live = {
      workspace: "default",
      file: "mux.go",
      symbol: indexed("Handle", "method", 109, { container: "Mux" }),
    };
    addLiveDeclaration(matches, parseNameQuery("(*Mux).Handle"), {}, live);
    expect(described(matches)).toEqual(["0 Mux.Handle mux.go"]);
  });

  test("live answers are matched by name and their one container", () => {
    const matches = new DeclarationMatches();
    const query = parseNameQuery("Widget.draw");
    const live = (name: string, container?: string) => ({
      workspace: "default",
      file: "src/w.py",
      symbol: indexed(name, "method", 3, container ? { container } : {}),
    });
    addLiveDeclaration(matches, query, {}, live("draw", "Widget"));
    addLiveDeclaration(matches, query, {}, live("draw", "Canvas"));
    addLiveDeclaration(matches, query, {}, live("redraw", "Widget"));
    expect(described(matches)).toEqual(["0 Widget.draw src/w.py"]);
    expect(matches.page(0, 1)[0]!.origin).toBe("live");
  });

  test("C++'s `::` separates a name path as `.` does, in the index and in clangd's qualified live containers", () => {
    expect(parseNameQuery("shop::Page::render")).toEqual({
      text: "shop::Page::render",
      name: "render",
      containers: ["shop", "Page"],
    });
    expect(described(find("shop::Page::render"))).toEqual(["0 Page.render src/ns.ts"]);
    const live = (container: string) => ({
      workspace: "default",
      file: "include/fmt/base.h",
      symbol: indexed("push_back", "method", 1829, { container }),
    });
    for (const [name, found] of [
      ["fmt::detail::buffer::push_back", 1],
      ["buffer.push_back", 1],
      ["detail::buffer::push_back", 1],
      ["push_back", 1],
      ["other::buffer::push_back", 0],
      ["fmt::push_back", 0],
    ] as const) {
      const matches = new DeclarationMatches();
      addLiveDeclaration(matches, parseNameQuery(name), {}, live("fmt::detail::buffer"));
      expect([name, matches.total]).toEqual([name, found]);
    }
  });
});

describe("resolving a name to one declaration", () => {
  test("unique: one exact match", () => {
    const resolution = resolveName(find("Greeter.greet"));
    expect(resolution).toMatchObject({ outcome: "unique", declaration: { file: "src/greeter.ts" }, passedOver: [] });
  });

  test("kind preference: a function before a method of the same name, which is named as passed over", () => {
    const resolution = resolveName(find("greet"));
    expect(resolution.outcome).toBe("unique");
    if (resolution.outcome !== "unique") return;
    expect(resolution.declaration).toMatchObject({ file: "src/util/greet.ts", symbol: { kind: "function" } });
    expect(resolution.passedOver.map(({ symbol }) => symbol.kind)).toEqual(["method"]);
  });

  test("ambiguous: two declarations of the best kind in different places", () => {
    const resolution = resolveName(find("render"));
    expect(resolution.outcome).toBe("ambiguous");
    if (resolution.outcome !== "ambiguous") return;
    expect(resolution.candidates.map(({ file }) => file)).toEqual(["src/ns.ts", "src/util/greet.ts"]);
  });

  test("entries of one place (overloads) count as one, the first line", () => {
    const overloads = tenantIndex({
      default: { "src/a.ts": [indexed("parse", "function", 7), indexed("parse", "function", 3)] },
    });
    const matches = findIndexedDeclarations(
      [{ workspace: "default", view: overloads.workspaces.get("default")! }],
      parseNameQuery("parse"),
      {},
    );
    expect(resolveName(matches)).toMatchObject({ outcome: "unique", declaration: { symbol: { line: 3 } } });
  });

  test("a C function's prototypes and its one definition are one function: the definition answers", () => {
    const c = tenantIndex({
      default: {
        "sds.h": [indexed("sdsnewlen", "function", 228)],
        "sds.c": [indexed("sdsnewlen", "function", 83)],
        "other.h": [indexed("sdsnewlen", "function", 12)],
      },
    });
    const view = [{ workspace: "default", view: c.workspaces.get("default")! }];
    expect(resolveName(findIndexedDeclarations(view, parseNameQuery("sdsnewlen"), {}))).toMatchObject({
      outcome: "unique",
      declaration: { file: "sds.c", symbol: { line: 83 } },
    });
    // Two definitions (two programs of one repository): a real choice.
    const two = tenantIndex({
      default: { "a.c": [indexed("main", "function", 1)], "b.c": [indexed("main", "function", 1)] },
    });
    const both = [{ workspace: "default", view: two.workspaces.get("default")! }];
    expect(resolveName(findIndexedDeclarations(both, parseNameQuery("main"), {})).outcome).toBe("ambiguous");
  });

  test("exact case wins over a match ignoring case; without either, none with the names starting so", () => {
    expect(resolveName(find("GREET"))).toMatchObject({
      outcome: "unique",
      declaration: { symbol: { kind: "constant" } },
    });
    const none = resolveName(find("greeti"));
    expect(none.outcome).toBe("none");
    if (none.outcome === "none") expect(none.similar.map(({ symbol }) => symbol.name)).toEqual(["greeting"]);
    expect(find("greeti").total).toBe(1);
    expect(find("greeti").of(MATCH.exact)).toEqual([]);
  });
});

describe("names in files indexed only as text (their server was not running)", () => {
  const lua = [{ workspace: "default", language: "lua" }];

  test("a language is undecided when one of its text files holds the word, ignoring case", () => {
    expect(undecidedTextLanguages(views, "greet")).toEqual(lua);
    expect(undecidedTextLanguages(views, "GREET")).toEqual(lua);
    expect(undecidedTextLanguages(views, "render")).toEqual([]);
  });

  test("and for a word text indexing does not record (short, not ASCII), or when a file left words out", () => {
    expect(undecidedTextLanguages(views, "id")).toEqual(lua);
    expect(undecidedTextLanguages(views, "größe")).toEqual(lua);
    const capped = tenantIndex({ default: { "scripts/big.lua": [indexed("other", "text", 1)] } });
    const entry = capped.workspaces.get("default")!.files.get("scripts/big.lua")!.entry;
    capped.apply({ type: "file", workspace: "default", entry: { ...entry, omitted: 4 } });
    const cappedViews = [...capped.workspaces].map(([workspace, view]) => ({ workspace, view }));
    expect(undecidedTextLanguages(cappedViews, "render")).toEqual(lua);
  });
});
