// rename_file: move a file and update the imports that refer to it (workspace/willRenameFiles).
import { z } from "zod";
import { applyArgument } from "../toolSupport/edits.js";
import { editTool } from "../toolSupport/editTool.js";
import { fileArgument, workspaceArgument } from "../toolSupport/shared.js";

const input = z.object({
  workspace: workspaceArgument,
  file: fileArgument.describe("Workspace-relative path of the file to move, e.g. src/util.ts."),
  new_file: fileArgument.describe("Workspace-relative target path, e.g. src/lib/util.ts."),
  apply: applyArgument,
});

export const renameFileTool = editTool({
  name: "rename_file",
  title: "Rename file",
  description:
    "Move or rename a file and update every import that refers to it, as the language server computes it. " +
    "By default only previews the edit (the move plus the import changes); pass apply: true to move the file and write the edits (needs lsp:write).",
  input,
  idempotent: false,
  request: (args) => ({
    file: args.file,
    ask: (runner, workspace, options) =>
      runner.renameFile({ workspace, file: args.file, newFile: args.new_file, apply: args.apply }, options),
    wording: () => ({ what: `moving ${args.file} to ${args.new_file}`, nothing: `Nothing to do for ${args.file}.` }),
  }),
});
