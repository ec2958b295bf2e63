import { create } from "@bufbuild/protobuf";
import {
  HoverAnswerSchema,
  LocationsAnswerSchema,
  ReadFileAnswerSchema,
  SearchTextAnswerSchema,
  ServerState,
} from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { findDefinitionTool } from "../tools/findDefinition.js";
import { findReferencesTool } from "../tools/findReferences.js";
import { hoverTool } from "../tools/hover.js";
import { fakeToolCall, indexed, tenantIndex } from "./fakeToolCall.js";
import { emptyFields } from "./positionTool.js";

const index = tenantIndex({
  default: {
    "src/greeter.ts": [
      indexed("Greeter", "class", 1, { exported: true }),
      indexed("greet", "method", 4, { container: "Greeter" }),
    ],
    "src/page.ts": [indexed("render", "function", 2)],
    "src/view.ts": [indexed("render", "function", 8)],
  },
});

const hover = () =>
  create(HoverAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript", resolved: { line: 4, column: 3 } },
    contents: "(method) Greeter.greet(): string",
  });

async function refusal(run: () => Promise<unknown>): Promise<GatewayError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected a GatewayError");
}

describe("symbol without file", () => {
  test("one declaration: its file and line are asked about, and the answer says where the name led", async () => {
    const call = fakeToolCall({ index, runner: { hover } });
    const { text, structured } = await hoverTool.invoke({ symbol: "Greeter.greet" }, call);
    expect(call.asked).toEqual([
      {
        method: "hover",
        request: {
          workspace: { tenant: "acme", workspace: "default" },
          at: {
            file: "src/greeter.ts",
            target: { case: "symbol", value: { name: "greet", lineHint: 4, occurrence: 0, columnHint: 0 } },
          },
        },
      },
    ]);
    expect(text).toBe(
      "Found `Greeter.greet` by name: method greet (in Greeter)  src/greeter.ts:4:3.\nHover for `greet` at src/greeter.ts:4:3:\n\n(method) Greeter.greet(): string",
    );
    expect(structured).toMatchObject({
      contents: "(method) Greeter.greet(): string",
      declaration: { name: "greet", kind: "method", container: "Greeter", file: "src/greeter.ts", line: 4, column: 3 },
    });
  });

  test("several declarations: a normal answer listing them, nothing asked of a runner", async () => {
    const call = fakeToolCall({ index });
    const { text, structured } = await findReferencesTool.invoke({ symbol: "render" }, call);
    expect(call.asked).toEqual([]);
    expect(text).toBe(
      "`render` names 2 declarations; ambiguous: pass file (and line) to choose:\nfunction render  src/page.ts:2:3\nfunction render  src/view.ts:8:3",
    );
    expect(structured).toMatchObject({
      state: "ready",
      partial: false,
      note: "ambiguous: 2 declarations named render; pass file (and line) to choose",
      locations: [],
      total: 0,
      truncated: false,
      offset: 0,
      candidates: [
        { name: "render", kind: "function", file: "src/page.ts", line: 2, column: 3 },
        { name: "render", kind: "function", file: "src/view.ts", line: 8, column: 3 },
      ],
    });
  });

  test("no declaration: NOT_FOUND naming the symbol and search_text", async () => {
    const error = await refusal(() => hoverTool.invoke({ symbol: "Greeter.wave" }, fakeToolCall({ index })));
    expect(error.code).toBe("NOT_FOUND");
    expect(error.message).toBe(
      "no declaration named 'Greeter.wave' in workspace 'default'; check the spelling, give file with symbol to point at it in a file, or use search_text to find it as text",
    );
  });

  test("line, column or occurrence without file are refused before any lookup", async () => {
    const error = await refusal(() => hoverTool.invoke({ symbol: "greet", line: 3 }, fakeToolCall({ index })));
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/need file/) });
    const nothing = await refusal(() => hoverTool.invoke({}, fakeToolCall({ index })));
    expect(nothing.message).toMatch(/^say where: give file with line and column/);
  });

  test("with file the position goes to the runner as before", async () => {
    const call = fakeToolCall({ index, runner: { hover } });
    await hoverTool.invoke({ file: "src/a.ts", line: 2, column: 5 }, call);
    expect(call.asked[0]!.request).toMatchObject({
      at: { file: "src/a.ts", target: { case: "position", value: { line: 2, column: 5 } } },
    });
  });
});

describe("no language server for the file: text matches instead", () => {
  const searchText = () =>
    create(SearchTextAnswerSchema, {
      total: 3,
      matches: [
        {
          file: "lib/build.rb",
          range: { start: { line: 3, column: 7 }, end: { line: 3, column: 16 } },
          lineText: "  def build_all(x)",
          rank: 0,
        },
        {
          file: "lib/run.rb",
          range: { start: { line: 9, column: 3 }, end: { line: 9, column: 12 } },
          lineText: "  build_all(1)",
          rank: 1,
        },
        {
          file: "spec/b.rb",
          range: { start: { line: 2, column: 1 }, end: { line: 2, column: 10 } },
          lineText: "build_all(2)",
          rank: 2,
        },
      ],
    });
  const readFile = () => create(ReadFileAnswerSchema, { text: "  def build_all(x)\n" });

  test("find_definition: the identifier at line:column is read, its declaration-like matches answered, labelled", async () => {
    const call = fakeToolCall({ index, unserved: /\.rb$/, runner: { readFile, searchText } });
    const { text, structured } = await findDefinitionTool.invoke({ file: "lib/build.rb", line: 3, column: 9 }, call);
    expect(call.asked.map(({ method }) => method)).toEqual(["readFile", "searchText"]);
    expect(call.asked[1]!.request).toMatchObject({ query: "\\bbuild_all\\b", regex: true, caseSensitive: true });
    expect(structured).toMatchObject({
      source: "text_search",
      partial: true,
      note: "no language server for .rb files here: text matches of build_all (ripgrep), not semantic results",
      locations: [{ file: "lib/build.rb", line: 3, column: 7, snippet: "def build_all(x)" }],
    });
    expect(text.split("\n").slice(0, 2)).toEqual([
      "Partial answer, results may be incomplete: no language server for .rb files here: text matches of build_all (ripgrep), not semantic results.",
      "1 declaration-like text match of `build_all`:",
    ]);
  });

  test("find_references with symbol: every whole-word match, paged by the runner", async () => {
    const call = fakeToolCall({ index, unserved: /\.rb$/, runner: { searchText } });
    const { text, structured } = await findReferencesTool.invoke({ file: "lib/run.rb", symbol: "build_all" }, call);
    expect(call.asked.map(({ method }) => method)).toEqual(["searchText"]);
    expect(structured).toMatchObject({ source: "text_search", partial: true, total: 3, truncated: false });
    expect((structured as { locations: unknown[] }).locations).toHaveLength(3);
    expect(text.split("\n")[1]).toBe("3 text matches of `build_all`:");
  });

  test("a text search that fails too keeps the first error, saying why there are no text matches", async () => {
    const call = fakeToolCall({ index, unserved: /\.rb$/ });
    const error = await refusal(() => findReferencesTool.invoke({ file: "lib/run.rb", symbol: "build_all" }, call));
    expect(error.code).toBe("NO_LANGUAGE_SERVER");
    expect(error.message).toBe(
      "no language server here serves files like lib/run.rb; a text search for build_all instead failed too (UNSUPPORTED: searchText is not implemented)",
    );
  });

  test("other errors, and a server that answers, are not turned into text matches", async () => {
    const failing = fakeToolCall({
      index,
      runner: {
        findDefinition: () => {
          throw new GatewayError("TIMEOUT", "the runner did not answer in time");
        },
      },
    });
    const error = await refusal(() => findDefinitionTool.invoke({ file: "src/a.ts", symbol: "x" }, failing));
    expect(error.code).toBe("TIMEOUT");
    const answering = fakeToolCall({
      index,
      runner: { findDefinition: () => create(LocationsAnswerSchema, { status: { state: ServerState.READY } }) },
    });
    const { structured } = await findDefinitionTool.invoke({ file: "src/a.ts", symbol: "x" }, answering);
    expect(structured).toMatchObject({ source: "language_server" });
  });
});

test("the empty answer of a tool: required fields empty or their default, status and optional fields left out", () => {
  const output = z.object({
    state: z.string(),
    items: z.array(z.string()),
    incomplete: z.boolean(),
    count: z.number().int(),
    label: z.string().describe("a label"),
    mode: z.string().default("flat"),
    extra: z.object({ a: z.string() }).optional(),
  });
  expect(emptyFields("t", output)).toEqual({ items: [], incomplete: false, count: 0, label: "", mode: "flat" });
  expect(() => emptyFields("t", z.object({ nested: z.object({ a: z.string() }) }))).toThrow(/t: output field nested/);
});
