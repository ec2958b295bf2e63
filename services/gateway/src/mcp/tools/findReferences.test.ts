import { create } from "@bufbuild/protobuf";
import { ReferencesAnswerSchema, ServerState } from "@lspmesh/proto";
import { expect, test } from "vitest";
import type { PositionAt } from "../toolSupport/shared.js";
import { referencesAnswer } from "./findReferences.js";

const at: PositionAt = { file: "src/a.ts", target: { case: "position", value: { line: 1, column: 17 } } };

function location(line: number, snippet: string) {
  return { file: "src/a.ts", range: { start: { line, column: 5 }, end: { line, column: 10 } }, snippet };
}

test("references list each place with its code line", () => {
  const answer = create(ReferencesAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript" },
    locations: [location(1, "export const naïve = 1;"), location(9, "    naïve + 1")],
    total: 2,
  });
  const { text, structured } = referencesAnswer(answer, at);
  expect(text).toBe(
    "2 references to src/a.ts:1:17:\nsrc/a.ts:1:5\n  export const naïve = 1;\nsrc/a.ts:9:5\n      naïve + 1",
  );
  expect(structured).toMatchObject({ total: 2, truncated: false });
  expect(structured.locations).toHaveLength(2);
});

test("a limited answer says how many exist and how to see more", () => {
  const answer = create(ReferencesAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript" },
    locations: [location(1, "x")],
    total: 120,
  });
  const { text, structured } = referencesAnswer(answer, at);
  expect(text.split("\n")[0]).toBe("120 references to src/a.ts:1:17; showing 1-1 (offset: 1 for the next ones):");
  expect(structured).toMatchObject({ total: 120, truncated: true, offset: 0, next_offset: 1 });
  // The last page has no next_offset.
  const last = referencesAnswer(answer, at, 119);
  expect(last.text.split("\n")[0]).toBe("120 references to src/a.ts:1:17; showing 120-120:");
  expect(last.structured).not.toHaveProperty("next_offset");
  expect(last.structured.truncated).toBe(false);
});

test("a page past the end keeps the total and says where the list ends", () => {
  const answer = create(ReferencesAnswerSchema, {
    status: { state: ServerState.READY, language: "cpp" },
    locations: [],
    total: 10,
  });
  const { text, structured } = referencesAnswer(answer, at, 50);
  expect(text.split("\n")[0]).toBe(
    "10 references to src/a.ts:1:17; offset 50 is past the last of them (offset 0 starts from the first)",
  );
  expect(structured).toMatchObject({ total: 10, truncated: false, offset: 50 });
  expect(structured).not.toHaveProperty("next_offset");
});

test("a partial non-empty answer is labelled partial", () => {
  const answer = create(ReferencesAnswerSchema, {
    status: { state: ServerState.INDEXING, language: "go", partial: true, note: "loading packages" },
    locations: [location(1, "x")],
    total: 1,
  });
  expect(referencesAnswer(answer, at).text.split("\n")[0]).toBe(
    "Partial answer: the go server is indexing, so results may be incomplete; try again shortly for more. (loading packages)",
  );
});

test("an empty partial answer is not reported as 'no references'", () => {
  const answer = create(ReferencesAnswerSchema, { status: { state: ServerState.STARTING, partial: true } });
  expect(referencesAnswer(answer, at).text).toBe("No results yet: the language server is starting; try again shortly.");
});

test("grouped references: the text lists the groups, structuredContent has both the flat list and the groups", () => {
  const answer = create(ReferencesAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript" },
    locations: [location(1, "export const naïve = 1;"), location(9, "naïve + 1")],
    total: 2,
  });
  const flat = referencesAnswer(answer, at);
  const groups = [
    { container: "(top level)", kind: "file", file: "src/a.ts", line: 1, references: flat.structured.locations },
  ];
  const { text, structured } = referencesAnswer(answer, at, 0, groups);
  expect(text).toBe(
    "2 references to src/a.ts:1:17:\n(top level) in src/a.ts:\n  src/a.ts:1:5\n    export const naïve = 1;\n  src/a.ts:9:5\n    naïve + 1",
  );
  expect(structured.locations).toEqual(flat.structured.locations);
  expect(structured.groups).toEqual(groups);
});
