// hover: the type and documentation of the identifier at a position, as markdown.
import type { HoverAnswer } from "@lspmesh/proto";
import { z } from "zod";
import type { ToolAnswer } from "../defineTool.js";
import { answerText, describeTarget } from "../text.js";
import { positionTool } from "../toolSupport/positionTool.js";
import {
  answerStatusShape,
  type PositionAt,
  positionArguments,
  rangeFrom,
  rangeShape,
  statusFrom,
} from "../toolSupport/shared.js";

const input = z.object(positionArguments);

const output = z.object({
  ...answerStatusShape,
  contents: z.string().describe("Type and documentation as markdown; empty when there is nothing to show."),
  range: z.object(rangeShape).optional().describe("The span of source the hover is about."),
});

export function hoverAnswer(answer: HoverAnswer, at: PositionAt): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const contents = answer.contents.trim();
  const target = describeTarget(at, status);
  const structured: z.output<typeof output> = { ...status, contents };
  if (answer.range) structured.range = rangeFrom(answer.range);
  const text = answerText(
    status,
    contents !== "",
    `No hover information for ${target}.`,
    `Hover for ${target}:`,
    "",
    contents,
  );
  return { text, structured };
}

export const hoverTool = positionTool({
  name: "hover",
  title: "Hover",
  description:
    "Type signature and documentation (markdown) of the identifier at a position, as an editor shows on hover. " +
    "Point at code with file plus line and column (both 1-based; column counts Unicode code points), " +
    "or with file plus symbol (the exact identifier) and optionally line as a hint, which needs no column, " +
    "or with symbol alone (a declaration's name or Class.method: found by name; several are listed to choose from).",
  input,
  output,
  ask: (runner, request, options) => runner.hover(request, options),
  answer: hoverAnswer,
});
