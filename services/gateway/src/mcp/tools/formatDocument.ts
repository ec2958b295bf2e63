// format_document: the formatting edits the language server proposes for a file; optionally applied.
import { z } from "zod";
import { deltaArguments } from "../toolSupport/diagnosticsDelta.js";
import { applyArgument } from "../toolSupport/edits.js";
import { editTool } from "../toolSupport/editTool.js";
import { fileArgument, workspaceArgument } from "../toolSupport/shared.js";

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
  ...deltaArguments,
});

export const formatDocumentTool = editTool({
  name: "format_document",
  title: "Format document",
  description:
    "Format one file with the language server's formatter. By default only previews the edits; pass apply: true to write them (needs lsp:write). " +
    "Formatting an already formatted file changes nothing. Applied, the answer says which diagnostics changed, unless diagnostics: false.",
  input,
  // Formatting twice gives the same file: idempotent.
  idempotent: true,
  request: (args) => ({
    route: { file: args.file },
    ask: (runner, base, options) =>
      runner.formatDocument(
        { ...base, file: args.file, apply: args.apply, tabSize: args.tab_size, insertSpaces: args.insert_spaces },
        options,
      ),
    wording: () => ({ what: `formatting ${args.file}`, nothing: `${args.file} is already formatted.` }),
  }),
});
