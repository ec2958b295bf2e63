import { create } from "@bufbuild/protobuf";
import { LocationsAnswerSchema, ServerState } from "@lspmesh/proto";
import { expect, test } from "vitest";
import type { PositionAt } from "../toolSupport/shared.js";
import { definitionAnswer } from "./findDefinition.js";

const byPosition: PositionAt = { file: "src/main.ts", target: { case: "position", value: { line: 4, column: 13 } } };
const bySymbol: PositionAt = {
  file: "src/main.ts",
  target: { case: "symbol", value: { name: "grüße", lineHint: 4, occurrence: 0, columnHint: 0 } },
};

test("each definition is file:line:column with its code line (non-ASCII kept)", () => {
  const answer = create(LocationsAnswerSchema, {
    status: {
      state: ServerState.READY,
      language: "typescript",
      server: "tsserver 5.9",
      resolved: { line: 4, column: 13 },
    },
    locations: [
      {
        file: "src/grüße.ts",
        range: { start: { line: 3, column: 17 }, end: { line: 3, column: 22 } },
        snippet: "export function grüße(name: string): string {",
      },
    ],
  });
  const { text, structured } = definitionAnswer(answer, bySymbol);
  expect(text).toBe(
    "1 definition of `grüße` at src/main.ts:4:13:\nsrc/grüße.ts:3:17\n  export function grüße(name: string): string {",
  );
  expect(structured).toEqual({
    state: "ready",
    partial: false,
    language: "typescript",
    server: "tsserver 5.9",
    resolved: { line: 4, column: 13 },
    locations: [
      {
        file: "src/grüße.ts",
        line: 3,
        column: 17,
        end_line: 3,
        end_column: 22,
        snippet: "export function grüße(name: string): string {",
      },
    ],
  });
});

test("no definition from a ready server says so", () => {
  const answer = create(LocationsAnswerSchema, { status: { state: ServerState.READY, language: "typescript" } });
  expect(definitionAnswer(answer, byPosition).text).toBe("No definition found for src/main.ts:4:13.");
});

test("no definition from an indexing server says it is not ready", () => {
  const answer = create(LocationsAnswerSchema, {
    status: { state: ServerState.INDEXING, language: "typescript", partial: true },
  });
  const { text, structured } = definitionAnswer(answer, byPosition);
  expect(text).toBe("No results yet: the typescript server is indexing; try again shortly.");
  expect(structured).toMatchObject({ state: "indexing", partial: true, locations: [] });
});
