// check_edit: what an edit would break or fix, without writing it. The runner lays the edit (or
// patch) over the servers' documents as unsaved content and compares the diagnostics of the edited
// files and their importers before and after; nothing reaches the disk.
import type { CheckEditAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { lines, statusHeader } from "../text.js";
import { deltaFrom, deltaShape, deltaText, waitArgument, wireWaitMs } from "../toolSupport/diagnosticsDelta.js";
import { workspaceEditFrom, workspaceEditInput } from "../toolSupport/edits.js";
import { patchFiles } from "../toolSupport/patchFiles.js";
import { answerStatusShape, statusFrom, workspaceArgument } from "../toolSupport/shared.js";

/** Default wait for the diagnostics before and after the edit, in ms (the runner's default too). */
const DEFAULT_WAIT_MS = 15_000;
/** Largest patch accepted, in characters (a patch this size is a whole refactoring; split it). */
const MAX_PATCH_CHARS = 1_000_000;

const input = z.object({
  workspace: workspaceArgument,
  edit: workspaceEditInput
    .omit({ operations: true })
    .optional()
    .describe(
      "The edit to check, as apply_workspace_edit takes it but text edits only: { files: [{ file, edits: [{ line, column, end_line, end_column, new_text }] }] }. Positions are 1-based, columns in code points, ends exclusive. Give edit or patch, not both.",
    ),
  patch: z
    .string({ error: "patch must be a string holding a unified diff" })
    .min(1, { error: "patch must not be empty" })
    .max(MAX_PATCH_CHARS, { error: `patch is longer than ${MAX_PATCH_CHARS} characters; check it in parts` })
    .optional()
    .describe(
      "The edit to check as a unified diff (git diff or diff -u), paths relative to the workspace; a/ and b/ prefixes are fine. Give edit or patch, not both.",
    ),
  wait_ms: waitArgument(
    DEFAULT_WAIT_MS,
    "Milliseconds to wait for the language servers' diagnostics before and after the edit",
  ),
  importers: z
    .boolean({ error: "importers must be true or false" })
    .default(true)
    .describe(
      "Also check the files that import an edited file, where a changed signature breaks callers (default true; false checks the edited files only, sooner).",
    ),
});

const output = z.object({ ...answerStatusShape, ...deltaShape });

type CheckEditOutput = z.output<typeof output>;

/** The runner's answer: the delta's summary, the new and fixed diagnostics listed, unchanged ones counted. */
export function checkEditAnswer(answer: CheckEditAnswer): ToolAnswer<CheckEditOutput> {
  const status = statusFrom(answer.status);
  const delta = deltaFrom(
    answer.delta ?? {
      changes: [],
      editedFiles: [],
      importerFiles: [],
      importersNotChecked: 0,
      partial: true,
      note: "the runner answered without a comparison",
    },
  );
  // The runner's delta note repeats the server's partial note: said once.
  const serverNote = status.note && !delta.note?.includes(status.note) ? status.note : undefined;
  const notes = [serverNote, delta.note].filter((note) => note !== undefined && note !== "");
  const structured: CheckEditOutput = {
    ...status,
    partial: status.partial || delta.partial,
    changes: delta.changes,
    counts: delta.counts,
    edited_files: delta.edited_files,
    importer_files: delta.importer_files,
    importers_not_checked: delta.importers_not_checked,
  };
  if (notes.length > 0) structured.note = notes.join("; ");
  // A ready server whose only note the delta says already needs no header of its own.
  const header = serverNote || status.state !== "ready" ? statusHeader({ ...status, note: serverNote }) : undefined;
  return { text: lines(header, ...deltaText(delta, "check_edit:")), structured };
}

export const checkEditTool = defineTool({
  name: "check_edit",
  title: "Check an edit",
  description:
    "What an edit would break or fix, before writing it: the edit (apply_workspace_edit's shape, text edits only) or a unified diff (patch) " +
    "is shown to the language servers as unsaved content — nothing is written — and the diagnostics of the edited files and of the files " +
    "importing them are compared before and after. Answers '<n> new, <m> fixed, <k> unchanged in <f> files', lists the new diagnostics " +
    "(what the edit breaks) and the fixed ones as file:line:column severity code: message (1-based, code points), and counts the unchanged ones. " +
    "Give exactly one of edit or patch. partial=true means some diagnostics did not arrive within wait_ms (default 15000): 0 new then proves nothing.",
  input,
  output,
  async run(args, call) {
    const { change, files } = changeFrom(args);
    const workspace = await call.workspace(args.workspace);
    const answer = await call.sendForEdit(
      workspace,
      files,
      (runner, options) =>
        runner.checkEdit(
          { workspace, change, waitMs: wireWaitMs(args.wait_ms), skipImporters: !args.importers },
          options,
        ),
      // The runner may wait up to wait_ms for diagnostics: the deadline grows by that much.
      { extraMs: args.wait_ms },
    );
    return checkEditAnswer(answer);
  },
});

/** The change to check and the files it touches (for routing); exactly one of edit and patch. */
function changeFrom(args: z.output<typeof input>) {
  if ((args.edit === undefined) === (args.patch === undefined))
    throw new GatewayError(
      "INVALID_ARGUMENT",
      args.edit === undefined
        ? "say what to check: give edit (text edits per file) or patch (a unified diff)"
        : "give edit or patch, not both",
    );
  if (args.edit !== undefined) {
    const files = [...new Set(args.edit.files.map((file) => file.file))];
    if (files.length === 0) throw new GatewayError("INVALID_ARGUMENT", "the edit is empty: give edit.files");
    const edit = workspaceEditFrom({ ...args.edit, operations: [] });
    return { change: { case: "edit" as const, value: edit }, files };
  }
  const patch = args.patch ?? "";
  const files = patchFiles(patch);
  if (files.length === 0)
    throw new GatewayError(
      "INVALID_ARGUMENT",
      "the patch names no file: give a unified diff with '--- a/<file>' and '+++ b/<file>' header lines before each file's hunks",
    );
  return { change: { case: "patch" as const, value: patch }, files };
}
