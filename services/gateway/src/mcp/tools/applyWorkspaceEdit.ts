// apply_workspace_edit: writes a workspace edit (e.g. a preview from rename_symbol) to the files and
// syncs the language servers. Always a write.
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { defineTool, writingAnnotations } from "../defineTool.js";
import {
  editAnswer,
  editAnswerOutput,
  touchedFiles,
  workspaceEditFrom,
  workspaceEditInput,
} from "../toolSupport/edits.js";
import { workspaceArgument } from "../toolSupport/shared.js";

const input = z.object({
  workspace: workspaceArgument,
  edit: workspaceEditInput.describe(
    "The edit to apply: { files: [{ file, edits: [{ line, column, end_line, end_column, new_text }], expected_sha256? }], operations: [{ kind, file, new_file? }] }. Positions are 1-based, columns in code points, ends exclusive.",
  ),
});

export const applyWorkspaceEditTool = defineTool({
  name: "apply_workspace_edit",
  title: "Apply workspace edit",
  description:
    "Write a workspace edit to the files and sync the language servers, e.g. the edit of a rename_symbol, code_actions or format_document preview. " +
    "Give expected_sha256 per file (from the preview) to refuse the edit if the file changed in between. Needs the lsp:write scope.",
  input,
  output: editAnswerOutput,
  annotations: writingAnnotations(false),
  writes: () => true,
  async run(args, call) {
    const edit = workspaceEditFrom(args.edit);
    if (edit.files.length === 0 && edit.operations.length === 0)
      throw new GatewayError("INVALID_ARGUMENT", "the edit is empty: give edit.files and/or edit.operations");
    const workspace = await call.workspace(args.workspace);
    const files = touchedFiles({ ...args.edit, operations: args.edit.operations });
    call.audit({ workspace: workspace.workspace, files: files.join(",") });
    const answer = await call.sendForEdit(
      workspace,
      files,
      (runner, options) => runner.applyWorkspaceEdit({ workspace, edit }, options),
      { write: true },
    );
    const result = editAnswer(answer, "the workspace edit", "The edit changed nothing.");
    call.audit({ applied: answer.applied });
    return result;
  },
});
