// replace_symbol_body, insert_before_symbol, insert_after_symbol: edits located by a symbol's name
// (the server's document symbols) instead of line and column; previewed unless apply is true,
// then written through the same atomic edit path as every edit, answering the diagnostics delta.
import { type EditAnswer, SymbolEditRequest_Mode } from "@lspmesh/proto";
import { z } from "zod";
import type { GatewayTool } from "../defineTool.js";
import { deltaArguments } from "../toolSupport/diagnosticsDelta.js";
import { applyArgument } from "../toolSupport/edits.js";
import { editTool } from "../toolSupport/editTool.js";
import { fileArgument, statusFrom, workspaceArgument } from "../toolSupport/shared.js";

/** Largest text accepted, in characters (a declaration this size is a file; write it with apply_workspace_edit). */
const MAX_TEXT_CHARS = 1_000_000;

function inputWith(textDescription: string) {
  return z.object({
    workspace: workspaceArgument,
    file: fileArgument.describe("Workspace-relative path of the file declaring the symbol, e.g. src/greeter.ts."),
    symbol: z
      .string({ error: "symbol must be a string, e.g. makeGreeting or PoliteGreeter.greet" })
      .min(1, { error: "symbol must not be empty: give a name such as makeGreeting or PoliteGreeter.greet" })
      .max(1000, { error: "symbol is longer than 1000 characters" })
      .describe(
        'The symbol: its name ("makeGreeting"), or its container and name joined by "." ("PoliteGreeter.greet") when the name alone is ambiguous; as document_symbols names them.',
      ),
    text: z
      .string({ error: "text must be a string" })
      .min(1, { error: "text must not be empty" })
      .max(MAX_TEXT_CHARS, { error: `text is longer than ${MAX_TEXT_CHARS} characters` })
      .describe(textDescription),
    apply: applyArgument,
    ...deltaArguments,
  });
}

interface SymbolEditSpec {
  name: string;
  title: string;
  description: string;
  textDescription: string;
  mode: SymbolEditRequest_Mode;
  /** "replacing", "inserting before": how the answer names the edit. */
  doing: string;
}

/** "`PoliteGreeter.greet` in src/greeter.ts", at the line it was found on when the runner says. */
function symbolAt(symbol: string, file: string, answer: EditAnswer): string {
  const resolved = statusFrom(answer.status).resolved;
  return resolved ? `\`${symbol}\` at ${file}:${resolved.line}:${resolved.column}` : `\`${symbol}\` in ${file}`;
}

function symbolEditTool(spec: SymbolEditSpec): GatewayTool {
  return editTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: inputWith(spec.textDescription),
    idempotent: false,
    request: (args) => ({
      route: { file: args.file },
      ask: (runner, base, options) =>
        runner.symbolEdit(
          { ...base, file: args.file, symbolPath: args.symbol, mode: spec.mode, text: args.text, apply: args.apply },
          options,
        ),
      wording: (answer) => {
        const target = symbolAt(args.symbol, args.file, answer);
        return { what: `${spec.doing} ${target}`, nothing: `Nothing to change: ${target} already reads so.` };
      },
    }),
  });
}

const PREVIEW_AND_DELTA =
  "By default only previews the edit; pass apply: true to write it (needs lsp:write), and the answer then says which diagnostics " +
  "the edit made new or fixed in the file and its importers (unless diagnostics: false). To know that before writing, use check_edit " +
  "with the preview's edit.";

export const replaceSymbolBodyTool = symbolEditTool({
  name: "replace_symbol_body",
  title: "Replace symbol",
  description:
    "Replace a whole declaration (function, method, class, variable…), found by its name, with new text: no line or column needed. " +
    "The text replaces the symbol's whole range as the language server reports it (signature and body), " +
    `so give the whole new declaration, not only the body. ${PREVIEW_AND_DELTA}`,
  textDescription:
    "The whole new declaration including its signature (e.g. 'export function f(a: string): number {\\n  return a.length;\\n}'), indented as the old one; it replaces the old declaration entirely.",
  mode: SymbolEditRequest_Mode.REPLACE_BODY,
  doing: "replacing",
});

export const insertBeforeSymbolTool = symbolEditTool({
  name: "insert_before_symbol",
  title: "Insert before symbol",
  description:
    "Insert text on its own lines just before a declaration found by its name (e.g. a new function, an import, a comment above it): " +
    `no line or column needed. ${PREVIEW_AND_DELTA}`,
  textDescription: "The lines to insert; they go on their own line(s) before the symbol's first line.",
  mode: SymbolEditRequest_Mode.INSERT_BEFORE,
  doing: "inserting before",
});

export const insertAfterSymbolTool = symbolEditTool({
  name: "insert_after_symbol",
  title: "Insert after symbol",
  description:
    "Insert text on its own lines just after a declaration found by its name (e.g. a new method after another one, a new function): " +
    `no line or column needed. ${PREVIEW_AND_DELTA}`,
  textDescription: "The lines to insert; they go on their own line(s) after the symbol's last line.",
  mode: SymbolEditRequest_Mode.INSERT_AFTER,
  doing: "inserting after",
});
