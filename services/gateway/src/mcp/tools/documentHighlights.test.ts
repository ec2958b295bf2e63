import { create } from "@bufbuild/protobuf";
import { DocumentHighlightsAnswerSchema, ServerState } from "@lspmesh/proto";
import { expect, test } from "vitest";
import type { PositionAt } from "../toolSupport/shared.js";
import { documentHighlightsAnswer } from "./documentHighlights.js";

const at: PositionAt = {
  file: "src/main.ts",
  target: { case: "symbol", value: { name: "count", lineHint: 3, occurrence: 0, columnHint: 0 } },
};

test("highlights: one line each with its range and kind, in the server's order", () => {
  const answer = create(DocumentHighlightsAnswerSchema, {
    status: { state: ServerState.READY, language: "python", resolved: { line: 3, column: 1 } },
    highlights: [
      { range: { start: { line: 3, column: 1 }, end: { line: 3, column: 6 } }, kind: "write" },
      { range: { start: { line: 4, column: 7 }, end: { line: 4, column: 12 } }, kind: "read" },
      { range: { start: { line: 5, column: 3 }, end: { line: 5, column: 8 } }, kind: "" },
    ],
  });
  const { text, structured } = documentHighlightsAnswer(answer, at);
  expect(text).toBe(
    "3 places in src/main.ts for `count` at src/main.ts:3:1:\n  3:1-3:6 write\n  4:7-4:12 read\n  5:3-5:8 text",
  );
  expect(structured.highlights).toEqual([
    { line: 3, column: 1, end_line: 3, end_column: 6, kind: "write" },
    { line: 4, column: 7, end_line: 4, end_column: 12, kind: "read" },
    { line: 5, column: 3, end_line: 5, end_column: 8, kind: "text" },
  ]);
});

test("no highlights from a server still indexing says so rather than 'none'", () => {
  const answer = create(DocumentHighlightsAnswerSchema, {
    status: { state: ServerState.INDEXING, language: "python", partial: true },
  });
  expect(documentHighlightsAnswer(answer, at).text).toMatch(/^No results yet: the python server is indexing/);
});
