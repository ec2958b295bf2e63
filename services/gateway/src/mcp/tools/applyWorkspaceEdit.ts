// apply_workspace_edit: writes a workspace edit (e.g. a preview from rename_symbol) to the files and
// syncs the language servers. Always a write; answers what it changed in the diagnostics.
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { deltaArguments } from "../toolSupport/diagnosticsDelta.js";
import { touchedFiles, workspaceEditFrom, workspaceEditInput } from "../toolSupport/edits.js";
import { editTool } from "../toolSupport/editTool.js";
import { workspaceArgument } from "../toolSupport/shared.js";

const input = z.object({
  workspace: workspaceArgument,
  edit: workspaceEditInput.describe(
    "The edit to apply: { files: [{ file, edits: [{ line, column, end_line, end_column, new_text }], expected_sha256? }], operations: [{ kind, file, new_file? }] }. Positions are 1-based, columns in code points, ends exclusive.",
  ),
  ...deltaArguments,
});

export const applyWorkspaceEditTool = editTool({
  name: "apply_workspace_edit",
  title: "Apply workspace edit",
  description:
    "Write a workspace edit to the files and sync the language servers, e.g. the edit of a rename_symbol, code_actions or format_document preview. " +
    "Give expected_sha256 per file (from the preview) to refuse the edit if the file changed in between. Needs the lsp:write scope. " +
    "The answer says which diagnostics the edit made new or fixed in the edited files and their importers, unless diagnostics: false " +
    "(to know that before writing, use check_edit).",
  input,
  idempotent: false,
  alwaysWrites: true,
  request: (args) => {
    const edit = workspaceEditFrom(args.edit);
    if (edit.files.length === 0 && edit.operations.length === 0)
      throw new GatewayError("INVALID_ARGUMENT", "the edit is empty: give edit.files and/or edit.operations");
    return {
      route: { files: touchedFiles({ ...args.edit, operations: args.edit.operations }) },
      ask: (runner, base, options) => runner.applyWorkspaceEdit({ ...base, edit }, options),
      wording: () => ({ what: "the workspace edit", nothing: "The edit changed nothing." }),
    };
  },
});
