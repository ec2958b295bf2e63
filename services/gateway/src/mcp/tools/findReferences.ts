// find_references: every place that refers to the symbol at a position.
import type { ReferencesAnswer } from "@lspmesh/proto";
import { z } from "zod";
import type { ToolAnswer } from "../defineTool.js";
import { answerText, counted, describeTarget, locationText } from "../text.js";
import { positionTool } from "../toolSupport/positionTool.js";
import {
  answerStatusShape,
  limitArgument,
  locationFrom,
  locationOutput,
  offsetArgument,
  type PositionAt,
  positionArguments,
  statusFrom,
} from "../toolSupport/shared.js";

/** References returned when `limit` is not given; keeps answers readable. */
const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 5000;

const input = z.object({
  ...positionArguments,
  include_declaration: z
    .boolean({ error: "include_declaration must be true or false" })
    .default(true)
    .describe("Include the declaration itself among the references (default true)."),
  limit: limitArgument(DEFAULT_LIMIT, MAX_LIMIT, "references").describe(
    `Most references to return (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}); total counts them all.`,
  ),
  offset: offsetArgument("Index of the first reference to return (0-based), from next_offset of the previous answer."),
});

const output = z.object({
  ...answerStatusShape,
  locations: z.array(locationOutput).describe("Reference locations, at most limit of them."),
  total: z.number().int().describe("How many references exist before the limit."),
  truncated: z.boolean().describe("True when total is larger than the locations returned."),
  offset: z.number().int().describe("Index of the first location returned."),
  next_offset: z.number().int().optional().describe("Pass as offset for the next page; absent on the last page."),
});

export function referencesAnswer(
  answer: ReferencesAnswer,
  at: PositionAt,
  offset = 0,
): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const locations = answer.locations.map(locationFrom);
  const total = Math.max(answer.total, offset + locations.length);
  const truncated = total > locations.length;
  const next = offset + locations.length < total ? offset + locations.length : undefined;
  const target = describeTarget(at, status);
  const heading = truncated
    ? `${counted(total, "reference")} to ${target}; showing ${offset + 1}-${offset + locations.length}${next === undefined ? "" : ` (offset: ${next} for the next ones)`}:`
    : `${counted(total, "reference")} to ${target}:`;
  // A page past the end still says how many there are.
  const found = locations.length > 0 || offset > 0;
  const text = answerText(status, found, `No references found to ${target}.`, heading, ...locations.map(locationText));
  const structured = {
    ...status,
    locations,
    total,
    truncated,
    offset,
    ...(next === undefined ? {} : { next_offset: next }),
  };
  return { text, structured };
}

export const findReferencesTool = positionTool({
  name: "find_references",
  title: "Find references",
  description:
    "Find all references to the identifier at a position across the workspace, each with its code line. " +
    "Point at code with file plus line and column (both 1-based; column counts Unicode code points), " +
    "or with file plus symbol (the exact identifier) and optionally line as a hint, which needs no column. " +
    "include_declaration (default true) counts the declaration too; limit caps the list, total tells how many exist, " +
    "and offset (next_offset of the answer) pages through the rest. " +
    "partial=true in the answer means the server was still indexing and more references may exist.",
  input,
  output,
  ask: (runner, request, options, args) =>
    runner.findReferences(
      { ...request, includeDeclaration: args.include_declaration, limit: args.limit, offset: args.offset },
      options,
    ),
  answer: (answer, at, args) => referencesAnswer(answer, at, args.offset),
});
