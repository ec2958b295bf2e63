import { create } from "@bufbuild/protobuf";
import { SearchTextAnswerSchema } from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import { GatewayError } from "../../errors.js";
import { TEXT_BUDGET } from "../text.js";
import { fakeToolCall } from "../toolSupport/fakeToolCall.js";
import { searchTextAnswer, searchTextTool } from "./searchText.js";

const match = (file: string, line: number, column: number, rank: number, lineText = `text of ${file}:${line}`) => ({
  file,
  range: { start: { line, column }, end: { line, column: column + 5 } },
  lineText,
  rank,
});

const found = (
  matches: ReturnType<typeof match>[],
  extra: { total?: number; totalAtLeast?: boolean; partial?: boolean; note?: string } = {},
) =>
  create(SearchTextAnswerSchema, {
    matches,
    total: extra.total ?? matches.length,
    filesSearchedWithMatches: new Set(matches.map((m) => m.file)).size,
    ...extra,
  });

describe("search_text answers", () => {
  test("one workspace: flat file:line:column lines, totals and where to page on", () => {
    const answer = found([match("src/a.ts", 3, 17, 0, "export function greet() {"), match("src/b.ts", 9, 2, 1)], {
      total: 7,
    });
    const { text, structured } = searchTextAnswer("greet", [{ workspace: "default", answer }], {
      offset: 0,
      limit: 2,
      first: 0,
    });
    expect(text).toBe(
      [
        '2 matches for "greet" (1–2 of 7); more with offset 2:',
        "  src/a.ts:3:17  export function greet() {",
        "  src/b.ts:9:2  text of src/b.ts:9",
      ].join("\n"),
    );
    expect(structured).toMatchObject({ total: 7, next_offset: 2, partial: false, files_with_matches: 2 });
    expect(structured.matches[0]).toEqual({
      workspace: "default",
      file: "src/a.ts",
      line: 3,
      column: 17,
      end_line: 3,
      end_column: 22,
      text: "export function greet() {",
      rank: 0,
    });
  });

  test("a page the runner cut (first = offset) is shown as is, numbered from the offset", () => {
    const answer = found([match("src/c.ts", 1, 1, 1)], { total: 3 });
    const { text, structured } = searchTextAnswer("x", [{ workspace: "default", answer }], {
      offset: 2,
      limit: 50,
      first: 2,
    });
    expect(text.split("\n")[0]).toBe('1 match for "x" (3–3 of 3):');
    expect(structured).not.toHaveProperty("next_offset");
  });

  test("nothing found: plain when complete, never a bare 'no matches' when a cap or a skip made it partial", () => {
    const page = { offset: 0, limit: 50, first: 0 };
    expect(searchTextAnswer("zzz", [{ workspace: "default", answer: found([]) }], page).text).toBe(
      'No matches for "zzz".',
    );
    const skipped = found([], { partial: true, note: "some files could not be searched: a.ts: Permission denied" });
    const { text, structured } = searchTextAnswer("zzz", [{ workspace: "default", answer: skipped }], page);
    expect(text).toBe(
      'No matches found for "zzz", but the search was incomplete (see the note).\nNote: some files could not be searched: a.ts: Permission denied',
    );
    expect(structured).toMatchObject({ partial: true, note: expect.stringMatching(/Permission denied/) });
  });

  test("several workspaces: merged by rank, then workspace and path, labelled; a failed one named, partial", () => {
    const searches = [
      { workspace: "web", answer: found([match("src/x.ts", 4, 1, 1), match("src/d.ts", 2, 7, 0)]) },
      { workspace: "api", answer: found([match("lib/y.go", 8, 3, 1), match("vendor/z.go", 1, 1, 3)]) },
      { workspace: "docs", error: new GatewayError("TIMEOUT", "the runner did not answer in time") },
    ];
    const { text, structured } = searchTextAnswer("greet", searches, { offset: 0, limit: 3, first: 0, window: 1000 });
    expect(text).toBe(
      [
        '3 matches for "greet" (1–3 of 4); more with offset 3:',
        "  web:src/d.ts:2:7  text of src/d.ts:2",
        "  api:lib/y.go:8:3  text of lib/y.go:8",
        "  web:src/x.ts:4:1  text of src/x.ts:4",
        "Note: workspace 'docs' was not searched (TIMEOUT: the runner did not answer in time)",
      ].join("\n"),
    );
    expect(structured).toMatchObject({ total: 4, next_offset: 3, partial: true, files_with_matches: 4 });
    expect(structured.matches.map((m) => m.workspace)).toEqual(["web", "api", "web"]);
  });

  test("across workspaces paging stops at the merged window and says how to go on", () => {
    const many = Array.from({ length: 10 }, (_, i) => match(`f${i}.ts`, 1, 1, 1));
    const searches = [
      { workspace: "a", answer: found(many, { total: 40 }) },
      { workspace: "b", answer: found([]) },
    ];
    const { structured } = searchTextAnswer("q", searches, { offset: 5, limit: 5, first: 0, window: 10 });
    expect(structured.matches.map((m) => m.file)).toEqual(["f5.ts", "f6.ts", "f7.ts", "f8.ts", "f9.ts"]);
    expect(structured).not.toHaveProperty("next_offset");
    expect(structured.note).toMatch(/pages through its first 10 matches; for the rest, search one workspace/);
  });

  test("a page longer than the text budget: the text pages on from the last line it shows", () => {
    const long = "x".repeat(300);
    const many = Array.from({ length: 1000 }, (_, i) => match(`src/f${String(i).padStart(4, "0")}.ts`, 1, 1, 1, long));
    const answer = found(many, { total: 2000 });
    const { text, structured } = searchTextAnswer("x", [{ workspace: "default", answer }], {
      offset: 0,
      limit: 1000,
      first: 0,
    });
    expect(text.length).toBeLessThan(TEXT_BUDGET);
    const shown = Number(/^(\d+) matches for "x" \(1–\1 of 2000\); more with offset \1:/.exec(text)?.[1]);
    expect(shown).toBeGreaterThan(10);
    expect(text).toContain(`this text shows ${shown} of the 1000 matches answered`);
    expect(structured.next_offset).toBe(1000);
  });
});

describe("search_text calls", () => {
  const answers = {
    searchText: (request: { workspace: { workspace: string } }) =>
      request.workspace.workspace.startsWith("broken")
        ? Promise.reject(new GatewayError("UNAVAILABLE", "the runner is unavailable"))
        : found([match(`${request.workspace.workspace}.ts`, 1, 1, 1)]),
  };

  test("one workspace pages on the runner; several are each asked their best offset+limit", async () => {
    const call = fakeToolCall({ workspaces: ["a", "b"], runner: answers });
    await searchTextTool.invoke({ query: "q", workspace: "b", offset: 30, limit: 10, path: "src/**" }, call);
    await searchTextTool.invoke({ query: "q", workspaces: "*", offset: 30, limit: 10 }, call);
    expect(call.asked.map(({ request }) => request)).toMatchObject([
      { workspace: { workspace: "b" }, offset: 30, limit: 10, globs: ["src/**"], regex: false },
      { workspace: { workspace: "a" }, offset: 0, limit: 40 },
      { workspace: { workspace: "b" }, offset: 0, limit: 40 },
    ]);
  });

  test("a failed workspace leaves the others' answer partial; all failed is the error; caller errors fail", async () => {
    const call = fakeToolCall({ workspaces: ["a", "broken", "broken-too"], runner: answers });
    const some = await searchTextTool.invoke({ query: "q", workspaces: "all" }, call);
    expect(some.text).toMatch(
      /^1 match for "q" \(1–1 of 1\):\n {2}a:a\.ts:1:1 .*\nNote: workspace 'broken' was not searched \(UNAVAILABLE/,
    );
    await expect(
      searchTextTool.invoke({ query: "q", workspaces: ["broken", "broken-too"] }, call),
    ).rejects.toMatchObject({
      code: "UNAVAILABLE",
      message: expect.stringMatching(/^no workspace could be searched; 'broken'/),
    });
    const invalid = fakeToolCall({
      workspaces: ["a", "b"],
      runner: {
        searchText: () => Promise.reject(new GatewayError("INVALID_ARGUMENT", "regex parse error: unclosed group")),
      },
    });
    await expect(searchTextTool.invoke({ query: "(", regex: true, workspaces: "*" }, invalid)).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringMatching(/unclosed group/),
    });
  });

  test("arguments refused before any runner call", async () => {
    const call = fakeToolCall({ workspaces: ["a", "b"], runner: answers });
    const search = async (args: Record<string, unknown>) => searchTextTool.invoke(args, call);
    await expect(search({ query: "" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(search({ query: "q", workspace: "a", workspaces: ["b"] })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    await expect(search({ query: "q", workspaces: "*", offset: 1000 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringMatching(/first 1000 matches/),
    });
    expect(call.asked).toEqual([]);
  });
});
