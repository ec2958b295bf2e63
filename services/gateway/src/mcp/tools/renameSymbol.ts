// rename_symbol: the workspace edit renaming the identifier at a position everywhere; a preview
// unless apply is true.
import { z } from "zod";
import { defineTool, writingAnnotations } from "../defineTool.js";
import { describeTarget } from "../text.js";
import { editAnswerShape, sendEdit } from "../toolSupport/edits.js";
import { positionArguments, positionFrom, statusFrom } from "../toolSupport/shared.js";

export const applyArgument = z
  .boolean({ error: "apply must be true or false" })
  .default(false)
  .describe("false (default): only preview the edit. true: write it to the files (needs the lsp:write scope).");

const input = z.object({
  ...positionArguments,
  new_name: z
    .string({ error: "new_name must be a string" })
    .min(1, { error: "new_name must not be empty" })
    .max(256, { error: "new_name is longer than 256 characters" })
    .describe("The new identifier."),
  apply: applyArgument,
});

const output = z.object(editAnswerShape);

export const renameSymbolTool = defineTool({
  name: "rename_symbol",
  title: "Rename symbol",
  description:
    "Rename the identifier at a position everywhere it is used, as the language server computes it (a semantic rename, not text search). " +
    "By default only previews the workspace edit (every file, line and column that would change); pass apply: true to write it. " +
    "Point at the identifier with file plus line and column (1-based, code points), or with file plus symbol and optionally line.",
  input,
  output,
  annotations: writingAnnotations(false),
  writes: (args) => args.apply,
  async run(args, call) {
    const at = positionFrom(args);
    const workspace = await call.workspace(args.workspace);
    return sendEdit(
      call,
      workspace,
      at.file,
      args.apply,
      (runner, options) => runner.renameSymbol({ workspace, at, newName: args.new_name, apply: args.apply }, options),
      (answer) => {
        const target = describeTarget(at, statusFrom(answer.status));
        return { what: `renaming ${target} to ${args.new_name}`, nothing: `Nothing to rename at ${target}.` };
      },
    );
  },
});
