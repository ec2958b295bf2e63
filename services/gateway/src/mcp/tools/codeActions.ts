// code_actions: quick fixes and refactorings the language server offers for a line or range,
// each with its edit; optionally applies the one with a given title.
import type { CodeActionsAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { defineTool, type ToolAnswer, writingAnnotations } from "../defineTool.js";
import { answerText, counted, lines } from "../text.js";
import {
  deltaArguments,
  deltaFrom,
  deltaRequest,
  deltaText,
  diagnosticsDeltaOutput,
} from "../toolSupport/diagnosticsDelta.js";
import { editFrom, editPreview, touchedFiles, workspaceEditOutput } from "../toolSupport/edits.js";
import { answerStatusShape, fileArgument, oneBased, statusFrom, workspaceArgument } from "../toolSupport/shared.js";

const input = z.object({
  workspace: workspaceArgument,
  file: fileArgument,
  line: oneBased("line").describe("1-based first line of the range (e.g. the line of a diagnostic)."),
  column: oneBased("column").optional().describe("1-based start column (code points); default 1."),
  end_line: oneBased("end_line").optional().describe("1-based last line; default line."),
  end_column: oneBased("end_column")
    .optional()
    .describe("1-based end column, exclusive; default: the whole last line."),
  kinds: z
    .array(z.string().min(1).max(100))
    .max(20)
    .optional()
    .describe('Only these kinds, e.g. ["quickfix"] or ["refactor.extract", "source.organizeImports"].'),
  apply_title: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe("Apply the action with exactly this title (from a previous answer); needs lsp:write. Omit to only list."),
  ...deltaArguments,
});

const output = z.object({
  ...answerStatusShape,
  actions: z.array(
    z.object({
      title: z.string(),
      kind: z.string().describe("e.g. quickfix, refactor.extract.function, source.organizeImports."),
      preferred: z.boolean().describe("The server marks this as the preferred fix."),
      edit: workspaceEditOutput.describe("What applying it changes (empty when it cannot be applied)."),
      disabled_reason: z
        .string()
        .optional()
        .describe(
          "Set when the action cannot be applied here: the server's reason, or that it works by a server command lspmesh does not run.",
        ),
    }),
  ),
  applied: z.boolean().describe("True when apply_title named an action and it was applied."),
  delta: diagnosticsDeltaOutput
    .optional()
    .describe("Applied with diagnostics (the default): what the action changed in the diagnostics."),
});

export function codeActionsAnswer(
  answer: CodeActionsAnswer,
  where: string,
  applyTitle: string | undefined,
): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const actions = answer.actions.map((action) => {
    const out: z.output<typeof output>["actions"][number] = {
      title: action.title,
      kind: action.kind,
      preferred: action.preferred,
      edit: editFrom(action.edit),
    };
    const disabled = disabledReason(action);
    if (disabled) out.disabled_reason = disabled;
    return out;
  });
  const described = actions.map((action, index) => {
    const preview = action.disabled_reason
      ? [`cannot be applied: ${action.disabled_reason}`]
      : isEmpty(action.edit) && !answer.applied
        ? ["changes nothing here"]
        : editPreview(action.edit);
    return lines(
      `${index + 1}. ${action.title}${action.kind ? ` [${action.kind}]` : ""}${action.preferred ? " (preferred)" : ""}`,
      ...preview.map((line) => `   ${line}`),
    );
  });
  const delta = answer.delta ? deltaFrom(answer.delta) : undefined;
  // Applied: the action that was, with the edit it made (the others' previews are of the old text).
  const appliedOne = described.filter((_, index) => actions[index]!.title === applyTitle);
  const text = answer.applied
    ? lines(
        `Applied "${applyTitle}" at ${where}.`,
        ...appliedOne,
        ...(delta ? deltaText(delta, "Diagnostics after the edit:") : []),
      )
    : answerText(
        status,
        actions.length > 0,
        `No code actions at ${where}.`,
        `${counted(actions.length, "code action")} at ${where}${applyTitle ? ` (none titled "${applyTitle}", nothing applied)` : ""}; apply one with apply_title:`,
        ...described,
      );
  const structured: z.output<typeof output> = { ...status, actions, applied: answer.applied };
  if (delta) structured.delta = delta;
  return { text, structured };
}

/** No operation and no text edit (the runner's answer or the tool's output alike). */
function isEmpty(
  edit: { operations: readonly unknown[]; files: ReadonlyArray<{ edits: readonly unknown[] }> } | undefined,
): boolean {
  return !edit || (edit.operations.length === 0 && edit.files.every((file) => file.edits.length === 0));
}

/** Why an action cannot be applied: the server's reason, or a command with no edit of its own. */
function disabledReason(action: CodeActionsAnswer["actions"][number]): string | undefined {
  if (action.disabledReason) return action.disabledReason;
  if (isEmpty(action.edit) && action.command)
    return `it works by running the server command '${action.command}', which lspmesh does not run`;
  return undefined;
}

export const codeActionsTool = defineTool({
  name: "code_actions",
  title: "Code actions",
  description:
    "Quick fixes and refactorings the language server offers for a line or range of a file (e.g. at a diagnostic: add a missing import, fix a type), " +
    "each with the edit it would make. Give apply_title (an exact title from a previous answer) to apply that action; this needs lsp:write, " +
    "and the answer then says which diagnostics the action made new or fixed (unless diagnostics: false).",
  input,
  output,
  annotations: writingAnnotations(false),
  writes: (args) => args.apply_title !== undefined,
  async run(args, call) {
    const endLine = args.end_line ?? args.line;
    // Without an end column the range runs to the start of the next line: the whole last line.
    const end =
      args.end_column !== undefined ? { line: endLine, column: args.end_column } : { line: endLine + 1, column: 1 };
    const range = { start: { line: args.line, column: args.column ?? 1 }, end };
    const workspace = await call.workspace(args.workspace);
    const write = args.apply_title !== undefined;
    const { delta, extraMs } = deltaRequest(args, write);
    const request = { workspace, file: args.file, range, kinds: args.kinds ?? [], applyTitle: args.apply_title ?? "" };
    const answer = await call.sendForFile(
      workspace,
      args.file,
      (runner, options) => runner.codeActions(delta ? { ...request, delta } : request, options),
      extraMs === undefined ? { write } : { write, extraMs },
    );
    const where = endLine === args.line ? `${args.file}:${args.line}` : `${args.file}:${args.line}-${endLine}`;
    const result = codeActionsAnswer(answer, where, args.apply_title);
    if (write) {
      const applied = result.structured.actions.find((action) => action.title === args.apply_title);
      call.audit({
        workspace: workspace.workspace,
        applied: answer.applied,
        action: args.apply_title,
        files: applied ? touchedFiles(applied.edit).join(",") : "",
      });
    }
    return result;
  },
});
