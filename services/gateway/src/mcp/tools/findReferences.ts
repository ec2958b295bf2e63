// find_references: every place that refers to the symbol at a position; optionally grouped by the
// symbol each reference is used in; text matches when no language server reads the file.
import type { ReferencesAnswer, SearchTextAnswer } from "@lspmesh/proto";
import { z } from "zod";
import type { ToolAnswer } from "../defineTool.js";
import { answerText, counted, describeTarget, locationText, pastTheEnd } from "../text.js";
import { fetchOutlines } from "../toolSupport/outlines.js";
import { type PositionContext, positionTool } from "../toolSupport/positionTool.js";
import {
  groupLines,
  groupReferences,
  type ReferenceGroup,
  referenceGroupOutput,
} from "../toolSupport/referenceGroups.js";
import {
  type AnswerStatusOutput,
  answerStatusShape,
  type LocationOutput,
  limitArgument,
  locationFrom,
  locationOutput,
  offsetArgument,
  type PositionAt,
  positionArguments,
  statusFrom,
} from "../toolSupport/shared.js";
import {
  answerSourceOutput,
  DECLARATION_RANK,
  type FileLanguage,
  textMatchLocation,
  textSearchInstead,
  textSearchStatus,
} from "../toolSupport/textFallback.js";

/** References returned when `limit` is not given; keeps answers readable. */
const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 5000;
/** The runner's most text matches per page (runner.proto SearchTextRequest.limit). */
const MAX_TEXT_MATCHES = 1000;

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
  group_by: z
    .enum(["symbol"], { error: "group_by must be 'symbol' (or left out for a flat list)" })
    .optional()
    .describe(
      "'symbol': also group the references of this page by the function, method or class each is used in (the innermost enclosing symbol; outlines of up to 20 files per page).",
    ),
});

type Input = z.output<typeof input>;

const output = z.object({
  ...answerStatusShape,
  locations: z.array(locationOutput).describe("Reference locations, at most limit of them."),
  total: z.number().int().describe("How many references exist before the limit."),
  truncated: z.boolean().describe("True when more locations follow this page (next_offset says where)."),
  offset: z.number().int().describe("Index of the first location returned."),
  next_offset: z.number().int().optional().describe("Pass as offset for the next page; absent on the last page."),
  groups: z
    .array(referenceGroupOutput)
    .optional()
    .describe(
      "With group_by 'symbol': this page's references by enclosing symbol, in the order of their first reference.",
    ),
  source: answerSourceOutput("whole-word text matches"),
});

type Output = z.output<typeof output>;

/** A page of references, from the language server or a text search. */
interface ReferencesPage {
  status: AnswerStatusOutput;
  locations: LocationOutput[];
  /** References before paging, as the source counted them. */
  total: number;
  offset: number;
  source: "language_server" | "text_search";
  /** Set with group_by "symbol". */
  groups?: ReferenceGroup[] | undefined;
  /** What is being referred to, for the text. */
  target: string;
}

export function referencesAnswer(
  answer: ReferencesAnswer,
  at: PositionAt,
  offset = 0,
  groups?: ReferenceGroup[],
): ToolAnswer<Output> {
  return pageAnswer({ ...languageServerPage(answer, at, offset), groups });
}

/** The runner's page of references, its locations converted once (the groups and the answer share them). */
function languageServerPage(answer: ReferencesAnswer, at: PositionAt, offset: number): ReferencesPage {
  const status = statusFrom(answer.status);
  return {
    status,
    locations: answer.locations.map(locationFrom),
    total: answer.total,
    offset,
    source: "language_server",
    target: describeTarget(at, status),
  };
}

/** References as text matches (no language server for the file): all whole-word matches of the name. */
function textSearchPage(
  answer: SearchTextAnswer,
  name: string,
  language: FileLanguage,
  offset: number,
  includeDeclaration: boolean,
): ReferencesPage {
  const status = textSearchStatus(language, name, answer);
  const matches = includeDeclaration ? answer.matches : answer.matches.filter((m) => m.rank !== DECLARATION_RANK);
  if (!includeDeclaration) status.note = `${status.note}; declaration-like lines left out, total still counts them`;
  return {
    status,
    locations: matches.map(textMatchLocation),
    total: answer.total,
    offset,
    source: "text_search",
    target: `\`${name}\``,
  };
}

function pageAnswer(page: ReferencesPage): ToolAnswer<Output> {
  const { status, locations, offset, target, groups } = page;
  // A page never shows more than exist; one past the end shows none and leaves the total as it is.
  const total = locations.length > 0 ? Math.max(page.total, offset + locations.length) : page.total;
  const pastEnd = locations.length === 0 && offset > 0 && offset >= total;
  const next = offset + locations.length < total ? offset + locations.length : undefined;
  const truncated = next !== undefined;
  const what =
    page.source === "text_search"
      ? `${counted(total, "text match", "text matches")} of ${target}`
      : `${counted(total, "reference")} to ${target}`;
  const heading = pastEnd
    ? `${what}; ${pastTheEnd(offset)}`
    : total > locations.length
      ? `${what}; showing ${offset + 1}-${offset + locations.length}${next === undefined ? "" : ` (offset: ${next} for the next ones)`}:`
      : `${what}:`;
  // A page past the end still says how many there are.
  const found = locations.length > 0 || offset > 0;
  const listed = groups ? groupLines(groups) : locations.map(locationText);
  const none = page.source === "text_search" ? `No text matches of ${target}.` : `No references found to ${target}.`;
  const text = answerText(status, found, none, heading, ...listed);
  const structured: Output = {
    ...status,
    locations,
    total,
    truncated,
    offset,
    ...(next === undefined ? {} : { next_offset: next }),
    ...(groups ? { groups } : {}),
    source: page.source,
  };
  return { text, structured };
}

/** The groups of a page's references (group_by "symbol"): outlines of its files, in parallel. */
async function groupsOf(
  locations: readonly LocationOutput[],
  args: Input,
  context: PositionContext,
): Promise<ReferenceGroup[] | undefined> {
  if (args.group_by !== "symbol") return undefined;
  const files = locations.filter((location) => !location.external).map((location) => location.file);
  const outlines = await fetchOutlines(context.call, context.workspace, files);
  return groupReferences(locations, outlines);
}

/** No language server for the file: whole-word text matches of the name, when there is a name. */
async function referencesByText(
  error: unknown,
  at: PositionAt,
  args: Input,
  context: PositionContext,
): Promise<ToolAnswer<Output> | undefined> {
  const limits = { limit: Math.min(args.limit, MAX_TEXT_MATCHES), offset: args.offset };
  const searched = await textSearchInstead(error, at, context, limits);
  if (!searched) return undefined;
  const { answer, name, language } = searched;
  const page = textSearchPage(answer, name, language, args.offset, args.include_declaration);
  // Files no server reads have no outline: their matches are listed as not grouped.
  return pageAnswer({ ...page, groups: await groupsOf(page.locations, args, context) });
}

export const findReferencesTool = positionTool({
  name: "find_references",
  title: "Find references",
  description:
    "Find all references to the identifier at a position across the workspace, each with its code line. " +
    "Point at code with file plus line and column (both 1-based; column counts Unicode code points), " +
    "or with file plus symbol (the exact identifier) and optionally line as a hint, which needs no column, " +
    "or with symbol alone (a declaration's name or Class.method: found by name; several are listed to choose from). " +
    "include_declaration (default true) counts the declaration too; limit caps the list, total tells how many exist, " +
    "and offset (next_offset of the answer) pages through the rest; group_by 'symbol' groups them by the function, method or class they are used in. " +
    "partial=true in the answer means the server was still indexing and more references may exist; " +
    "source 'text_search' means no language server reads the file here, so the answer lists whole-word text matches instead.",
  input,
  output,
  ask: (runner, request, options, args) =>
    runner.findReferences(
      { ...request, includeDeclaration: args.include_declaration, limit: args.limit, offset: args.offset },
      options,
    ),
  answer: async (answer, at, args, context) => {
    const page = languageServerPage(answer, at, args.offset);
    return pageAnswer({ ...page, groups: await groupsOf(page.locations, args, context) });
  },
  fallback: referencesByText,
});
