// format_document: the formatting edits the language server proposes for a file; optionally applied.
import { z } from "zod";
import { defineTool, writingAnnotations } from "../defineTool.js";
import { editAnswerShape, sendEdit } from "../toolSupport/edits.js";
import { fileArgument, workspaceArgument } from "../toolSupport/shared.js";
import { applyArgument } from "./renameSymbol.js";

const input = z.object({
  workspace: workspaceArgument,
  file: fileArgument,
  apply: applyArgument,
  tab_size: z
    .number({ error: "tab_size must be a number" })
    .int({ error: "tab_size must be a whole number" })
    .min(1, { error: "tab_size must be at least 1" })
    .max(16, { error: "tab_size must be at most 16" })
    .default(2)
    .describe("Spaces per indentation level (default 2)."),
  insert_spaces: z
    .boolean({ error: "insert_spaces must be true or false" })
    .default(true)
    .describe("Indent with spaces (default true) or tabs."),
});

const output = z.object(editAnswerShape);

export const formatDocumentTool = defineTool({
  name: "format_document",
  title: "Format document",
  description:
    "Format one file with the language server's formatter. By default only previews the edits; pass apply: true to write them (needs lsp:write). " +
    "Formatting an already formatted file changes nothing.",
  input,
  output,
  // Formatting twice gives the same file: idempotent.
  annotations: writingAnnotations(true),
  writes: (args) => args.apply,
  async run(args, call) {
    const workspace = await call.workspace(args.workspace);
    return sendEdit(
      call,
      workspace,
      args.file,
      args.apply,
      (runner, options) =>
        runner.formatDocument(
          { workspace, file: args.file, apply: args.apply, tabSize: args.tab_size, insertSpaces: args.insert_spaces },
          options,
        ),
      () => ({ what: `formatting ${args.file}`, nothing: `${args.file} is already formatted.` }),
    );
  },
});
