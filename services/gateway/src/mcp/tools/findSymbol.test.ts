import { create } from "@bufbuild/protobuf";
import {
  DocumentSymbolsAnswerSchema,
  ReadFileAnswerSchema,
  ServerState,
  SymbolKind,
  WorkspaceSymbolsAnswerSchema,
} from "@lspmesh/proto";
import { expect, test } from "vitest";
import { fitBody } from "../toolSupport/declarationBodies.js";
import { fakeToolCall, indexed, tenantIndex } from "../toolSupport/fakeToolCall.js";
import { fileFilterOf, findSymbolOutput, findSymbolTool, kindsOf, matchCounts } from "./findSymbol.js";

const index = tenantIndex({
  default: {
    "src/greeter.ts": [
      indexed("Greeter", "class", 1, { column: 14, exported: true, snippet: "export class Greeter {" }),
      indexed("greet", "method", 2, { container: "Greeter", snippet: "greet(name: string) {" }),
    ],
    "src/util.ts": [
      indexed("greet", "function", 5, { column: 17, exported: true, snippet: "export function greet() {}" }),
    ],
  },
});

const greeterOutline = create(DocumentSymbolsAnswerSchema, {
  symbols: [
    {
      name: "Greeter",
      kind: SymbolKind.CLASS,
      range: { start: { line: 1, column: 1 }, end: { line: 5, column: 2 } },
      selectionRange: { start: { line: 1, column: 14 }, end: { line: 1, column: 21 } },
      children: [
        {
          name: "greet",
          kind: SymbolKind.METHOD,
          range: { start: { line: 2, column: 3 }, end: { line: 4, column: 4 } },
          selectionRange: { start: { line: 2, column: 3 }, end: { line: 2, column: 8 } },
        },
      ],
    },
  ],
});

test("a name path answered from the index, with the declaration's body read over its full range", async () => {
  const call = fakeToolCall({
    index,
    runner: {
      documentSymbols: () => greeterOutline,
      readFile: () =>
        create(ReadFileAnswerSchema, {
          text: "  greet(name: string) {\n    return name;\n  }\n",
          startLine: 2,
          endLine: 4,
        }),
    },
  });
  const { text, structured } = await findSymbolTool.invoke({ name: "Greeter.greet", include_body: true }, call);
  expect(call.asked.find(({ method }) => method === "readFile")?.request).toMatchObject({
    file: "src/greeter.ts",
    startLine: 2,
    endLine: 4,
  });
  expect(text).toBe(
    [
      '1 declaration named "Greeter.greet":',
      "method greet (in Greeter)  src/greeter.ts:2:3, lines 2-4:",
      "```",
      "  greet(name: string) {\n    return name;\n  }",
      "```",
    ].join("\n"),
  );
  expect(structured).toMatchObject({
    state: "ready",
    partial: false,
    server: "symbol index",
    total: 1,
    symbols: [
      {
        name: "greet",
        kind: "method",
        container: "Greeter",
        match: "exact",
        source: "typescript-syntax",
        location: { file: "src/greeter.ts", line: 2, column: 3 },
        body: { start_line: 2, end_line: 4, truncated: false },
      },
    ],
  });
  // Every field is in the output schema (parsing would drop one that is not).
  expect(findSymbolOutput.parse(structured)).toEqual(structured);
});

/** The fields of find_symbol's structured answer these tests read. */
type Found = { symbols: Array<{ name: string; kind: string; match: string; source: string }> };

test("ranked exact names first, filtered by kind; no body asked without include_body", async () => {
  const call = fakeToolCall({ index });
  const structured = (await findSymbolTool.invoke({ name: "greet" }, call)).structured as Found;
  expect(structured.symbols.map(({ kind, match }) => `${kind} ${match}`)).toEqual([
    "function exact",
    "method exact",
    "class prefix_ignoring_case",
  ]);
  expect(call.asked).toEqual([]);
  const methods = await findSymbolTool.invoke({ name: "greet", kind: "method", file: "src/" }, call);
  expect((methods.structured as Found).symbols.map(({ kind }) => kind)).toEqual(["method"]);
  expect(methods.text.split("\n")[0]).toBe('1 declaration named "greet" of kind method in src/:');
});

test("a workspace without an index is asked live, and the answer says so (partial)", async () => {
  const call = fakeToolCall({
    runner: {
      workspaceSymbols: () =>
        create(WorkspaceSymbolsAnswerSchema, {
          status: { state: ServerState.READY, language: "python", server: "pyright" },
          symbols: [
            {
              name: "greet",
              kind: SymbolKind.FUNCTION,
              location: { file: "app/g.py", range: { start: { line: 3, column: 5 } } },
            },
            {
              name: "greeting_card",
              kind: SymbolKind.CLASS,
              location: { file: "app/c.py", range: { start: { line: 1, column: 7 } } },
            },
            {
              name: "regret",
              kind: SymbolKind.FUNCTION,
              location: { file: "app/r.py", range: { start: { line: 1, column: 5 } } },
            },
          ],
        }),
    },
  });
  const { text, structured } = await findSymbolTool.invoke({ name: "greet" }, call);
  expect((structured as Found).symbols.map(({ name, source }) => `${name} ${source}`)).toEqual([
    "greet live",
    "greeting_card live",
  ]);
  expect(structured).toMatchObject({
    partial: true,
    note: "default: no symbol index yet (it is being built): asked its language servers live",
  });
  expect(text.split("\n")[0]).toMatch(/^Partial answer, results may be incomplete: default: no symbol index yet/);
});

test("a name in files indexed only as text (their server not running) is asked of that server live, members by their own name", async () => {
  const asked: string[][] = [];
  const call = fakeToolCall({
    index: tenantIndex({
      default: {
        "src/greeter.ts": [indexed("Greeter", "class", 1, { exported: true })],
        "command.go": [indexed("Command", "text", 3), indexed("Execute", "text", 9)],
      },
    }),
    runner: {
      workspaceSymbols: (request: { languages: string[] }) => {
        asked.push(request.languages);
        return create(WorkspaceSymbolsAnswerSchema, {
          status: { state: ServerState.READY, language: "go", server: "gopls" },
          symbols: [
            {
              name: "Command.Execute",
              kind: SymbolKind.METHOD,
              containerName: "github.com/spf13/cobra",
              location: { file: "command.go", range: { start: { line: 9, column: 19 } } },
            },
          ],
        });
      },
    },
  });
  const found = await findSymbolTool.invoke({ name: "Execute" }, call);
  expect(asked).toEqual([["go"]]);
  expect((found.structured as Found).symbols.map(({ name, kind, source }) => `${name} ${kind} ${source}`)).toEqual([
    "Execute method live",
  ]);
  expect(found.structured).toMatchObject({
    partial: true,
    note: "default: its go files are indexed as text until the go server runs: asked that server live",
  });
  // A name no text file holds is answered from the index alone.
  const greeter = await findSymbolTool.invoke({ name: "Greeter" }, call);
  expect(asked).toHaveLength(1);
  expect(greeter.structured).toMatchObject({ partial: false });
});

test("kinds are the answers' names; files are a file, a folder or a glob", () => {
  expect(kindsOf(["Enum Member", "class"])).toEqual(new Set(["enum_member", "class"]));
  expect(() => kindsOf("widget")).toThrow(/unknown kind 'widget'; kinds: file, module, namespace/);
  const folder = fileFilterOf("./src/");
  expect([folder?.("src/a.ts"), folder?.("src"), folder?.("srcs/a.ts")]).toEqual([true, true, false]);
  const glob = fileFilterOf("src/**/*.test.ts");
  expect([glob?.("src/a/b.test.ts"), glob?.("src/a/b.ts")]).toEqual([true, false]);
});

test("a body cut at whole lines within the budget says which lines to read", () => {
  const read = { startLine: 10, endLine: 400, text: "line\n".repeat(200) };
  expect(fitBody(read, 12)).toEqual({
    start_line: 10,
    end_line: 400,
    text: "line\nline\n",
    truncated: true,
    note: "body truncated, read_file lines 12–400",
  });
  expect(fitBody({ startLine: 1, endLine: 2, text: "a\nb" }, 100)).toEqual({
    start_line: 1,
    end_line: 2,
    text: "a\nb",
    truncated: false,
  });
});

test("a page past the end keeps the total and says where the list ends", async () => {
  const call = fakeToolCall({ index });
  const { text, structured } = await findSymbolTool.invoke({ name: "greet", offset: 9 }, call);
  expect(text).toBe(
    '3 declarations named "greet" or starting so (2 exactly, 1 starting so); offset 9 is past the last of them (offset 0 starts from the first)',
  );
  expect(structured).toMatchObject({ total: 3, truncated: false, offset: 9, symbols: [] });
  expect(structured).not.toHaveProperty("next_offset");
});

test("the header tells exact names from names that match only ignoring case", () => {
  // Textualize/rich: "Console" is one class and 458 `console` variables.
  expect(matchCounts({ exactCase: 1, exact: 459, total: 466 })).toBe(
    " or starting so (1 exactly, 458 ignoring case, 7 starting so)",
  );
  expect(matchCounts({ exactCase: 1, exact: 200, total: 200 })).toBe(" ignoring case (1 exactly, 199 ignoring case)");
  expect(matchCounts({ exactCase: 0, exact: 0, total: 3 })).toBe(" or starting so (0 exactly, 3 starting so)");
  expect(matchCounts({ exactCase: 3, exact: 3, total: 3 })).toBe("");
});

test("a live answer cut at its limit says that more declarations may have the name", async () => {
  // Textualize/rich before pyright ran: 459 names "console" among pyright's 552 matches, 200 read.
  const call = fakeToolCall({
    runner: {
      workspaceSymbols: () =>
        create(WorkspaceSymbolsAnswerSchema, {
          status: { state: ServerState.READY, language: "python", server: "pyright" },
          total: 552,
          symbols: Array.from({ length: 200 }, (_, i) => ({
            name: i === 0 ? "Console" : "console",
            kind: i === 0 ? SymbolKind.CLASS : SymbolKind.VARIABLE,
            location: { file: `examples/e${i}.py`, range: { start: { line: 1, column: 1 } } },
          })),
        }),
    },
  });
  const { text, structured } = await findSymbolTool.invoke({ name: "Console", limit: 1 }, call);
  expect(structured).toMatchObject({ partial: true, total: 200 });
  expect((structured as { note?: string }).note).toContain(
    "default: its python server matched 552 names and only the best 200 were read, so more declarations may have the name",
  );
  expect(text.split("\n")[1]).toBe(
    '200 declarations named "Console" ignoring case (1 exactly, 199 ignoring case); showing 1-1 (offset: 1 for more):',
  );
});

test("a body whose range is the name alone (pyright's variables) says the declaration may go on", () => {
  // Textualize/rich: rich/_spinners.py `SPINNERS = {` runs 460 lines; pyright's range is `SPINNERS`.
  expect(fitBody({ startLine: 22, endLine: 22, text: "SPINNERS = {\n", nameOnly: true }, 1000)).toEqual({
    start_line: 22,
    end_line: 22,
    text: "SPINNERS = {\n",
    truncated: true,
    note: "the language server gives only the name's range: the declaration may go on past line 22; read_file from line 22",
  });
});
