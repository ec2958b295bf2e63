import { create } from "@bufbuild/protobuf";
import { EditAnswerSchema, FileOperation_Kind, ServerState, WorkspaceEditSchema } from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import { TEXT_BUDGET } from "../text.js";
import {
  changeLinesWithin,
  editAnswer,
  editFrom,
  editPreview,
  touchedFiles,
  workspaceEditFrom,
  workspaceEditInput,
} from "./edits.js";

const edit = create(WorkspaceEditSchema, {
  files: [
    {
      file: "src/grüße.ts",
      expectedSha256: "ab".repeat(32),
      edits: [{ range: { start: { line: 3, column: 17 }, end: { line: 3, column: 22 } }, newText: "hallo" }],
    },
  ],
  operations: [{ kind: FileOperation_Kind.RENAME, file: "src/a.ts", newFile: "src/b.ts" }],
});

describe("workspace edits", () => {
  test("runner edits become 1-based ranges with new_text; renames keep their target", () => {
    expect(editFrom(edit)).toEqual({
      files: [
        {
          file: "src/grüße.ts",
          expected_sha256: "ab".repeat(32),
          edits: [{ line: 3, column: 17, end_line: 3, end_column: 22, new_text: "hallo" }],
        },
      ],
      operations: [{ kind: "rename", file: "src/a.ts", new_file: "src/b.ts" }],
    });
    expect(touchedFiles(editFrom(edit))).toEqual(["src/grüße.ts", "src/a.ts", "src/b.ts"]);
  });

  test("the preview counts and lists every change", () => {
    expect(editPreview(editFrom(edit))).toEqual([
      "1 edit in 1 file and 1 file operation",
      "move src/a.ts → src/b.ts",
      'src/grüße.ts:3:17-3:22 → "hallo"',
    ]);
  });

  test("a preview says it was not applied and how to apply; an applied edit says so", () => {
    const status = { state: ServerState.READY, language: "typescript" };
    const preview = editAnswer(create(EditAnswerSchema, { status, edit }), "renaming x", "nothing");
    expect(preview.text).toMatch(
      /^Preview of renaming x \(not applied; call again with apply: true to write it\): 1 edit/,
    );
    expect(preview.structured.applied).toBe(false);
    const applied = editAnswer(create(EditAnswerSchema, { status, edit, applied: true }), "renaming x", "nothing");
    expect(applied.text).toMatch(/^Applied renaming x: /);
    const empty = editAnswer(create(EditAnswerSchema, { status }), "formatting a.ts", "a.ts is already formatted.");
    expect(empty.text).toBe("a.ts is already formatted.");
  });

  test("an applied edit with a delta appends its summary and carries it; without one, no delta field", () => {
    const status = { state: ServerState.READY, language: "typescript" };
    const delta = { editedFiles: ["src/grüße.ts"], partial: true, note: "src/grüße.ts: no diagnostics in time" };
    const answer = editAnswer(
      create(EditAnswerSchema, { status, edit, applied: true, delta }),
      "renaming x",
      "nothing",
    );
    expect(answer.text.split("\n").slice(-2)).toEqual([
      "Diagnostics after the edit: 0 new, 0 fixed, 0 unchanged in 1 file (1 edited, 0 importers).",
      "Incomplete: src/grüße.ts: no diagnostics in time. 0 new proves nothing.",
    ]);
    expect(answer.structured.delta).toMatchObject({ partial: true, edited_files: ["src/grüße.ts"] });
    const without = editAnswer(create(EditAnswerSchema, { status, edit, applied: true }), "renaming x", "nothing");
    expect(without.structured).not.toHaveProperty("delta");
  });

  test("an applied edit too long to list keeps its delta in the text: the edit lines are cut, and say so", () => {
    const status = { state: ServerState.READY, language: "typescript" };
    const many = create(WorkspaceEditSchema, {
      files: Array.from({ length: 20 }, (_, index) => ({
        file: `packages/react/runtime/test/browser/file${index}.test.tsx`,
        edits: Array.from({ length: 20 }, (_, line) => ({
          range: { start: { line: line + 1, column: 13 }, end: { line: line + 1, column: 19 } },
          newText: "createSignal",
        })),
      })),
    });
    const delta = { editedFiles: ["packages/core/src/index.ts"], partial: true, note: "no diagnostics in time" };
    const answer = editAnswer(
      create(EditAnswerSchema, { status, edit: many, applied: true, delta }),
      "renaming `signal`",
      "nothing",
    );
    expect(answer.text.length).toBeLessThan(TEXT_BUDGET);
    expect(answer.text).toMatch(/^Applied renaming `signal`: 400 edits in 20 files\./);
    expect(answer.text).toMatch(/\n… \d+ more changes not shown \(structuredContent's edit has all 400\)\.\n/);
    expect(answer.text.split("\n").slice(-2)).toEqual([
      "Diagnostics after the edit: 0 new, 0 fixed, 0 unchanged in 1 file (1 edited, 0 importers).",
      "Incomplete: no diagnostics in time. 0 new proves nothing.",
    ]);
    expect(answer.structured.edit.files.flatMap((file) => file.edits)).toHaveLength(400);
    expect(changeLinesWithin(["a", "b"], 10)).toEqual(["a", "b"]);
    expect(changeLinesWithin(["abc", "def", "ghi"], 8)).toEqual([
      "abc",
      "def",
      "… 1 more change not shown (structuredContent's edit has all 3).",
    ]);
  });

  test("apply_workspace_edit input round-trips to the runner's edit", () => {
    const input = workspaceEditInput.parse({
      files: [{ file: "src/a.ts", edits: [{ line: 1, column: 1, end_line: 1, end_column: 4, new_text: "let" }] }],
      operations: [{ kind: "create", file: "src/new.ts" }],
    });
    expect(workspaceEditFrom(input)).toEqual({
      files: [
        {
          file: "src/a.ts",
          expectedSha256: "",
          edits: [{ range: { start: { line: 1, column: 1 }, end: { line: 1, column: 4 } }, newText: "let" }],
        },
      ],
      operations: [{ kind: FileOperation_Kind.CREATE, file: "src/new.ts", newFile: "" }],
    });
    expect(workspaceEditInput.safeParse({ files: [{ file: "a.ts", edits: [{ line: 0 }] }] }).success).toBe(false);
  });
});
