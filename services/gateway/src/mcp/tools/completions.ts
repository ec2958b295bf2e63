// completions: what the language server would offer to type at a position.
import type { CompletionAnswer } from "@lspmesh/proto";
import { z } from "zod";
import type { ToolAnswer } from "../defineTool.js";
import { answerText, counted, describeTarget } from "../text.js";
import { positionTool } from "../toolSupport/positionTool.js";
import {
  answerStatusShape,
  limitArgument,
  type PositionAt,
  positionArguments,
  statusFrom,
} from "../toolSupport/shared.js";

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

const input = z.object({
  ...positionArguments,
  limit: limitArgument(DEFAULT_LIMIT, MAX_LIMIT, "items"),
});

const output = z.object({
  ...answerStatusShape,
  items: z.array(
    z.object({
      label: z.string(),
      kind: z.string().describe("e.g. method, property, function, keyword."),
      detail: z.string().optional().describe("Type or signature."),
      documentation: z.string().optional(),
      insert_text: z.string().optional().describe("Text inserted when it differs from the label."),
    }),
  ),
  incomplete: z.boolean().describe("True when the server has more items (type more characters to narrow)."),
});

export function completionsAnswer(answer: CompletionAnswer, at: PositionAt): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const items = answer.items.map((item) => {
    const out: z.output<typeof output>["items"][number] = { label: item.label, kind: item.kind };
    if (item.detail) out.detail = item.detail;
    if (item.documentation) out.documentation = item.documentation;
    if (item.insertText && item.insertText !== item.label) out.insert_text = item.insertText;
    return out;
  });
  const target = describeTarget(at, status);
  const text = answerText(
    status,
    items.length > 0,
    `No completions at ${target}.`,
    `${counted(items.length, "completion")} at ${target}${answer.incomplete ? " (more exist)" : ""}:`,
    ...items.map(
      (item) => `${item.label}${item.kind ? ` [${item.kind}]` : ""}${item.detail ? `: ${item.detail}` : ""}`,
    ),
  );
  return { text, structured: { ...status, items, incomplete: answer.incomplete } };
}

export const completionsTool = positionTool({
  name: "completions",
  title: "Completions",
  description:
    "Completion items at a position: the members, functions, variables and keywords the language server would offer to type there, with types. " +
    "Point at the position after the text typed so far (e.g. just after `obj.`), with file plus line and column (1-based, code points).",
  input,
  output,
  ask: (runner, request, options, args) => runner.completions({ ...request, limit: args.limit }, options),
  answer: completionsAnswer,
});
