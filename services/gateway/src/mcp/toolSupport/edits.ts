// Workspace edits (rename, format, code actions, file moves): output schema, the apply argument,
// conversion from the runner's WorkspaceEdit, a readable preview, and the input schema of
// apply_workspace_edit.
import { type EditAnswer, FileOperation_Kind, type WorkspaceEdit } from "@lspmesh/proto";
import { z } from "zod";
import { answerText, counted, lines, TEXT_BUDGET } from "../text.js";
import { deltaFrom, deltaText, diagnosticsDeltaOutput } from "./diagnosticsDelta.js";
import { answerStatusShape, fileArgument, oneBased, rangeFrom, rangeShape, statusFrom } from "./shared.js";

const textEditOutput = z.object({
  ...rangeShape,
  new_text: z.string().describe("Replacement text for the range (empty = delete)."),
});

const fileEditOutput = z.object({
  file: z.string(),
  edits: z.array(textEditOutput),
  expected_sha256: z
    .string()
    .optional()
    .describe("SHA-256 of the content the edits were computed against; pass it back when applying."),
});

const OPERATION_KINDS = ["create", "rename", "delete"] as const;

const fileOperationOutput = z.object({
  kind: z.enum(OPERATION_KINDS),
  file: z.string(),
  new_file: z.string().optional().describe("Target path of a rename."),
});

export const workspaceEditOutput = z.object({
  files: z.array(fileEditOutput),
  operations: z.array(fileOperationOutput),
});

export type WorkspaceEditOutput = z.output<typeof workspaceEditOutput>;

/** Output of every tool that answers with an edit. */
export const editAnswerOutput = z.object({
  ...answerStatusShape,
  edit: workspaceEditOutput.describe("The workspace edit; with applied=false nothing was changed on disk."),
  applied: z.boolean().describe("True when the edit was written to the files and the language servers synced."),
  delta: diagnosticsDeltaOutput
    .optional()
    .describe("Applied with diagnostics (the default): what the edit changed in the diagnostics."),
});

/** The `apply` argument of the tools that preview an edit unless told to write it. */
export const applyArgument = z
  .boolean({ error: "apply must be true or false" })
  .default(false)
  .describe("false (default): only preview the edit. true: write it to the files (needs the lsp:write scope).");

const KIND_NAMES: Record<FileOperation_Kind, (typeof OPERATION_KINDS)[number] | undefined> = {
  [FileOperation_Kind.UNSPECIFIED]: undefined,
  [FileOperation_Kind.CREATE]: "create",
  [FileOperation_Kind.RENAME]: "rename",
  [FileOperation_Kind.DELETE]: "delete",
};

export function editFrom(edit: WorkspaceEdit | undefined): WorkspaceEditOutput {
  return {
    files: (edit?.files ?? []).map((file) => {
      const out: z.output<typeof fileEditOutput> = {
        file: file.file,
        edits: file.edits.map((textEdit) => ({ ...rangeFrom(textEdit.range), new_text: textEdit.newText })),
      };
      if (file.expectedSha256) out.expected_sha256 = file.expectedSha256;
      return out;
    }),
    operations: (edit?.operations ?? []).flatMap((operation) => {
      const kind = KIND_NAMES[operation.kind];
      if (!kind) return [];
      return [
        operation.newFile
          ? { kind, file: operation.file, new_file: operation.newFile }
          : { kind, file: operation.file },
      ];
    }),
  };
}

/** Longest replacement text shown in a preview line, in characters. */
const PREVIEW_TEXT = 80;

/** "2 edits in 1 file" and one line per edit: file:line:column-end_line:end_column → `text`. */
export function editPreview(edit: WorkspaceEditOutput): string[] {
  const editCount = edit.files.reduce((sum, file) => sum + file.edits.length, 0);
  const out: string[] = [];
  for (const operation of edit.operations) {
    out.push(
      operation.kind === "rename"
        ? `move ${operation.file} → ${operation.new_file}`
        : `${operation.kind} ${operation.file}`,
    );
  }
  for (const file of edit.files) {
    for (const textEdit of file.edits) {
      const shown =
        textEdit.new_text.length > PREVIEW_TEXT ? `${textEdit.new_text.slice(0, PREVIEW_TEXT)}…` : textEdit.new_text;
      out.push(
        `${file.file}:${textEdit.line}:${textEdit.column}-${textEdit.end_line}:${textEdit.end_column} → ${JSON.stringify(shown)}`,
      );
    }
  }
  const summary = [
    editCount > 0 ? `${counted(editCount, "edit")} in ${counted(edit.files.length, "file")}` : "",
    edit.operations.length > 0 ? counted(edit.operations.length, "file operation") : "",
  ]
    .filter((part) => part !== "")
    .join(" and ");
  return summary ? [summary, ...out] : [];
}

/** Characters of an edit answer's text kept for its status, summary and the line saying edits were left out. */
const EDIT_TEXT_MARGIN = 2_000;

/**
 * The change lines that fit in `room` characters, and a line saying how many more there are: a
 * rename with hundreds of edits must not push what follows them (the diagnostics delta, whether it
 * is partial) past the end of the text answer.
 */
export function changeLinesWithin(changes: readonly string[], room: number): string[] {
  let used = 0;
  let shown = 0;
  while (shown < changes.length && used + changes[shown]!.length + 1 <= room) used += changes[shown++]!.length + 1;
  if (shown === changes.length) return [...changes];
  return [
    ...changes.slice(0, shown),
    `… ${counted(changes.length - shown, "more change")} not shown (structuredContent's edit has all ${changes.length}).`,
  ];
}

/** Common text of edit answers: what was (or would be) done, or why nothing is; then the delta, if asked. */
export function editAnswer(answer: EditAnswer, what: string, nothing: string) {
  const status = statusFrom(answer.status);
  const edit = editFrom(answer.edit);
  const preview = editPreview(edit);
  const structured: z.output<typeof editAnswerOutput> = { ...status, edit, applied: answer.applied };
  if (answer.delta) structured.delta = deltaFrom(answer.delta);
  const after = structured.delta ? deltaText(structured.delta, "Diagnostics after the edit:") : [];
  const room = TEXT_BUDGET - EDIT_TEXT_MARGIN - lines(...after).length - (status.note?.length ?? 0);
  const text = answerText(
    status,
    preview.length > 0,
    nothing,
    answer.applied
      ? `Applied ${what}: ${preview[0]}.`
      : `Preview of ${what} (not applied; call again with apply: true to write it): ${preview[0]}.`,
    ...changeLinesWithin(preview.slice(1), Math.max(room, 0)),
  );
  return { text: after.length > 0 ? lines(text, ...after) : text, structured };
}

// ---------------------------------------------------------------------------------------------
// Input of apply_workspace_edit

export const workspaceEditInput = z.object({
  files: z
    .array(
      z.object({
        file: fileArgument,
        edits: z
          .array(
            z.object({
              line: oneBased("line").describe("1-based start line."),
              column: oneBased("column").describe("1-based start column (Unicode code points)."),
              end_line: oneBased("end_line").describe("1-based end line."),
              end_column: oneBased("end_column").describe("1-based end column, exclusive."),
              new_text: z.string().describe("Replacement text (empty = delete the range)."),
            }),
          )
          .max(10_000),
        expected_sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/, { error: "expected_sha256 must be 64 lower-case hex digits" })
          .optional()
          .describe("Refuse the edit if the file's content changed since this hash (from a preview)."),
      }),
    )
    .max(1000)
    .default([])
    .describe("Text edits per file, as in the edit of a rename_symbol or format_document preview."),
  operations: z
    .array(
      z.object({
        kind: z.enum(OPERATION_KINDS),
        file: fileArgument,
        new_file: fileArgument.optional().describe("Target path, for kind rename."),
      }),
    )
    .max(1000)
    .default([])
    .describe("File creations, renames (moves) and deletions, applied before the text edits."),
});

const KIND_VALUES: Record<(typeof OPERATION_KINDS)[number], FileOperation_Kind> = {
  create: FileOperation_Kind.CREATE,
  rename: FileOperation_Kind.RENAME,
  delete: FileOperation_Kind.DELETE,
};

/** The runner's WorkspaceEdit (init shape) from apply_workspace_edit's input. */
export function workspaceEditFrom(edit: z.output<typeof workspaceEditInput>) {
  return {
    files: edit.files.map((file) => ({
      file: file.file,
      expectedSha256: file.expected_sha256 ?? "",
      edits: file.edits.map((textEdit) => ({
        range: {
          start: { line: textEdit.line, column: textEdit.column },
          end: { line: textEdit.end_line, column: textEdit.end_column },
        },
        newText: textEdit.new_text,
      })),
    })),
    operations: edit.operations.map((operation) => ({
      kind: KIND_VALUES[operation.kind],
      file: operation.file,
      newFile: operation.new_file ?? "",
    })),
  };
}

/** Every file an edit touches (for audit lines). */
export function touchedFiles(edit: WorkspaceEditOutput): string[] {
  return [
    ...new Set([
      ...edit.files.map((file) => file.file),
      ...edit.operations.flatMap((operation) => [operation.file, ...(operation.new_file ? [operation.new_file] : [])]),
    ]),
  ];
}
