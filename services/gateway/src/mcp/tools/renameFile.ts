// rename_file: move a file and update the imports that refer to it (workspace/willRenameFiles).
import { z } from "zod";
import { deltaArguments } from "../toolSupport/diagnosticsDelta.js";
import { applyArgument } from "../toolSupport/edits.js";
import { editTool } from "../toolSupport/editTool.js";
import { fileArgument, workspaceArgument } from "../toolSupport/shared.js";

const input = z.object({
  workspace: workspaceArgument,
  file: fileArgument.describe("Workspace-relative path of the file to move, e.g. src/util.ts."),
  new_file: fileArgument.describe("Workspace-relative target path, e.g. src/lib/util.ts."),
  apply: applyArgument,
  ...deltaArguments,
});

export const renameFileTool = editTool({
  name: "rename_file",
  title: "Rename file",
  description:
    "Move or rename a file and update every import that refers to it, as the language server computes it. " +
    "By default only previews the edit (the move plus the import changes); pass apply: true to move the file and write the edits (needs lsp:write); " +
    "the answer then says which diagnostics the move made new or fixed, unless diagnostics: false.",
  input,
  idempotent: false,
  request: (args) => ({
    route: { file: args.file },
    ask: (runner, base, options) =>
      runner.renameFile({ ...base, file: args.file, newFile: args.new_file, apply: args.apply }, options),
    wording: () => ({ what: `moving ${args.file} to ${args.new_file}`, nothing: `Nothing to do for ${args.file}.` }),
  }),
});
