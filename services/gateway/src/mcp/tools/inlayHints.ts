// inlay_hints: the inline hints an editor shows (inferred types, parameter names) for a range.
import type { InlayHintsAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { answerText, counted } from "../text.js";
import { answerStatusShape, fileArgument, oneBased, statusFrom, workspaceArgument } from "../toolSupport/shared.js";

const input = z.object({
  workspace: workspaceArgument,
  file: fileArgument,
  line: oneBased("line").optional().describe("1-based first line; omit (with end_line) for the whole file."),
  end_line: oneBased("end_line").optional().describe("1-based last line, inclusive; default line."),
});

const output = z.object({
  ...answerStatusShape,
  hints: z.array(
    z.object({
      line: z.number().int(),
      column: z.number().int().describe("1-based column (code points) the hint is shown before."),
      label: z.string().describe("e.g. ': string' or 'name:'."),
      kind: z.string().describe("type or parameter (empty when the server does not say)."),
    }),
  ),
});

export function inlayHintsAnswer(answer: InlayHintsAnswer, where: string): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const hints = answer.hints.map((hint) => ({
    line: hint.position?.line ?? 1,
    column: hint.position?.column ?? 1,
    label: hint.label,
    kind: hint.kind,
  }));
  const text = answerText(
    status,
    hints.length > 0,
    `No inlay hints in ${where}.`,
    `${counted(hints.length, "inlay hint")} in ${where}:`,
    ...hints.map((hint) => `${hint.line}:${hint.column} ${hint.label}${hint.kind ? ` [${hint.kind}]` : ""}`),
  );
  return { text, structured: { ...status, hints } };
}

export const inlayHintsTool = defineTool({
  name: "inlay_hints",
  title: "Inlay hints",
  description:
    "Inlay hints for a file or a line range: the inferred types and parameter names an editor shows inline, each at a 1-based line and column. " +
    "Useful to see inferred types of many variables at once.",
  input,
  output,
  async run(args, call) {
    if (args.end_line !== undefined && args.line === undefined)
      throw new GatewayError("INVALID_ARGUMENT", "end_line needs line: give both, or neither for the whole file");
    const endLine = args.end_line ?? args.line;
    if (args.line !== undefined && endLine !== undefined && endLine < args.line)
      throw new GatewayError("INVALID_ARGUMENT", "end_line is before line");
    // The range ends at the start of the line after end_line: whole lines.
    const range =
      args.line !== undefined && endLine !== undefined
        ? { start: { line: args.line, column: 1 }, end: { line: endLine + 1, column: 1 } }
        : undefined;
    const workspace = await call.workspace(args.workspace);
    const answer = await call.sendForFile(workspace, args.file, (runner, options) =>
      runner.inlayHints({ workspace, file: args.file, range }, options),
    );
    const where = range ? `${args.file}:${args.line}-${endLine}` : args.file;
    return inlayHintsAnswer(answer, where);
  },
});
