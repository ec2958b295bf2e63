// code_actions with apply_title asks the diagnostics delta and shows it; listing asks none.
// (Its listing answers are tested in answers.test.ts.)
import { create } from "@bufbuild/protobuf";
import { CodeActionsAnswerSchema, ServerState, Severity } from "@lspmesh/proto";
import { expect, test } from "vitest";
import type { ToolCall } from "../toolCall.js";
import { codeActionsAnswer, codeActionsTool } from "./codeActions.js";

const ready = { state: ServerState.READY, language: "typescript" };
const fix = { title: "Change type to string", kind: "quickfix", preferred: true };

test("an applied action answers what it fixed; a listing has no delta", () => {
  const answer = create(CodeActionsAnswerSchema, {
    status: ready,
    actions: [fix],
    applied: true,
    delta: {
      changes: [
        {
          file: "src/broken.ts",
          state: "fixed",
          diagnostic: {
            range: { start: { line: 3, column: 14 }, end: { line: 3, column: 19 } },
            severity: Severity.ERROR,
            code: "2322",
            message: "Type 'string' is not assignable to type 'number'.",
          },
        },
      ],
      editedFiles: ["src/broken.ts"],
    },
  });
  const applied = codeActionsAnswer(answer, "src/broken.ts:3", fix.title);
  expect(applied.text).toBe(
    [
      'Applied "Change type to string" at src/broken.ts:3.',
      "1. Change type to string [quickfix] (preferred)",
      "Diagnostics after the edit: 0 new, 1 fixed, 0 unchanged in 1 file (1 edited, 0 importers).",
      "Fixed (1):",
      "src/broken.ts:3:14 error 2322: Type 'string' is not assignable to type 'number'.",
    ].join("\n"),
  );
  expect(applied.structured.delta).toMatchObject({ counts: { new: 0, fixed: 1, unchanged: 0 } });
  const listed = codeActionsAnswer(create(CodeActionsAnswerSchema, { status: ready, actions: [fix] }), "x", undefined);
  expect(listed.structured).not.toHaveProperty("delta");
});

test("the delta is asked only with apply_title, the deadline growing by wait_ms", async () => {
  const seen: Array<{ options: object; request: Record<string, unknown> }> = [];
  const call = {
    workspace: async () => ({ tenant: "acme", workspace: "web" }),
    sendForFile: async (_target: unknown, _file: string, rpc: (r: unknown, o: object) => unknown, options: object) =>
      rpc(
        {
          codeActions: async (request: Record<string, unknown>) => {
            seen.push({ options, request });
            return create(CodeActionsAnswerSchema, { status: ready });
          },
        },
        {},
      ),
    audit: () => {},
  } as unknown as ToolCall;
  await codeActionsTool.invoke({ file: "src/broken.ts", line: 3 }, call);
  await codeActionsTool.invoke({ file: "src/broken.ts", line: 3, apply_title: fix.title, wait_ms: 2000 }, call);
  expect(seen[0]?.options).toEqual({ write: false });
  expect(seen[0]?.request).not.toHaveProperty("delta");
  expect(seen[1]?.options).toEqual({ write: true, extraMs: 2000 });
  expect(seen[1]?.request).toMatchObject({ applyTitle: fix.title, delta: { enabled: true, waitMs: 2000 } });
});

test("actions that cannot be applied say why, in the text and the structured answer", () => {
  const answer = create(CodeActionsAnswerSchema, {
    status: ready,
    actions: [
      { title: "Move to file", kind: "refactor.move.file", disabledReason: "Selection is not a valid statement" },
      { title: "Run tests", kind: "", command: "_custom.runTests" },
      {
        title: "Extract to constant",
        kind: "refactor.extract.constant",
        edit: {
          files: [
            {
              file: "src/a.ts",
              edits: [{ range: { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } }, newText: "x" }],
            },
          ],
        },
      },
    ],
  });
  const listed = codeActionsAnswer(answer, "src/a.ts:1", undefined);
  expect(listed.text).toContain(
    "1. Move to file [refactor.move.file]\n   cannot be applied: Selection is not a valid statement\n2. Run tests\n   cannot be applied: it works by running the server command '_custom.runTests', which lspmesh does not run\n3. Extract to constant",
  );
  const nothing = codeActionsAnswer(
    create(CodeActionsAnswerSchema, { status: ready, actions: [{ title: "Fix all", kind: "source.fixAll.ts" }] }),
    "src/a.ts:1",
    undefined,
  );
  expect(nothing.text).toContain("1. Fix all [source.fixAll.ts]\n   changes nothing here");
  expect(listed.structured.actions.map((action) => action.disabled_reason)).toEqual([
    "Selection is not a valid statement",
    "it works by running the server command '_custom.runTests', which lspmesh does not run",
    undefined,
  ]);
});
