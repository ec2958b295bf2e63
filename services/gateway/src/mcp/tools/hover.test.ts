import { create } from "@bufbuild/protobuf";
import { HoverAnswerSchema, ServerState } from "@lspmesh/proto";
import { expect, test } from "vitest";
import type { PositionAt } from "../toolSupport/shared.js";
import { hoverAnswer } from "./hover.js";

const at: PositionAt = {
  file: "src/日本.ts",
  target: { case: "symbol", value: { name: "名前", lineHint: 0, occurrence: 0, columnHint: 0 } },
};

test("hover contents are markdown under a line saying what they are about", () => {
  const answer = create(HoverAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript", resolved: { line: 2, column: 7 } },
    contents: "```typescript\nconst 名前: string\n```\nThe user's name.\n",
    range: { start: { line: 2, column: 7 }, end: { line: 2, column: 9 } },
  });
  const { text, structured } = hoverAnswer(answer, at);
  expect(text).toBe("Hover for `名前` at src/日本.ts:2:7:\n\n```typescript\nconst 名前: string\n```\nThe user's name.");
  expect(structured).toMatchObject({
    contents: "```typescript\nconst 名前: string\n```\nThe user's name.",
    range: { line: 2, column: 7, end_line: 2, end_column: 9 },
    resolved: { line: 2, column: 7 },
  });
});

test("empty hover: plain from a ready server, not-ready wording otherwise", () => {
  const ready = create(HoverAnswerSchema, { status: { state: ServerState.READY, resolved: { line: 2, column: 7 } } });
  expect(hoverAnswer(ready, at).text).toBe("No hover information for `名前` at src/日本.ts:2:7.");
  expect(hoverAnswer(ready, at).structured).not.toHaveProperty("range");
  const starting = create(HoverAnswerSchema, {
    status: { state: ServerState.STARTING, language: "rust", partial: true },
  });
  expect(hoverAnswer(starting, at).text).toBe("No results yet: the rust server is starting; try again shortly.");
});
