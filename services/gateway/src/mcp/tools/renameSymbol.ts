// rename_symbol: the workspace edit renaming the identifier at a position everywhere; a preview
// unless apply is true.
import { z } from "zod";
import { describeTarget } from "../text.js";
import { deltaArguments } from "../toolSupport/diagnosticsDelta.js";
import { applyArgument } from "../toolSupport/edits.js";
import { editTool } from "../toolSupport/editTool.js";
import { positionArguments, positionFrom, statusFrom } from "../toolSupport/shared.js";

const input = z.object({
  ...positionArguments,
  new_name: z
    .string({ error: "new_name must be a string" })
    .min(1, { error: "new_name must not be empty" })
    .max(256, { error: "new_name is longer than 256 characters" })
    .describe("The new identifier."),
  apply: applyArgument,
  ...deltaArguments,
});

export const renameSymbolTool = editTool({
  name: "rename_symbol",
  title: "Rename symbol",
  description:
    "Rename the identifier at a position everywhere it is used, as the language server computes it (a semantic rename, not text search). " +
    "By default only previews the workspace edit (every file, line and column that would change); pass apply: true to write it " +
    "(the answer then says which diagnostics the rename made new or fixed, unless diagnostics: false). " +
    "Point at the identifier with file plus line and column (1-based, code points), or with file plus symbol and optionally line.",
  input,
  idempotent: false,
  request: (args) => {
    const at = positionFrom(args);
    return {
      route: { file: at.file },
      ask: (runner, base, options) =>
        runner.renameSymbol({ ...base, at, newName: args.new_name, apply: args.apply }, options),
      wording: (answer) => {
        const target = describeTarget(at, statusFrom(answer.status));
        return { what: `renaming ${target} to ${args.new_name}`, nothing: `Nothing to rename at ${target}.` };
      },
    };
  },
});
