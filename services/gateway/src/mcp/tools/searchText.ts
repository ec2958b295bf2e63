// search_text: literal or regex search (ripgrep on the runner) in one workspace or across the
// caller's workspaces, ranked — a declaration in source first, then other source, tests, vendored
// or generated code — and paged. The fallback when no language server reads a language.
import type { SearchTextAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { counted, lines } from "../text.js";
import type { ToolCall } from "../toolCall.js";
import { toGatewayError } from "../toolErrors.js";
import { limitArgument, offsetArgument, workspaceArgument } from "../toolSupport/shared.js";
import { globList, globsArgument, LISTED_ROOM, linesThatFit, textCutNote } from "./listFiles.js";

/** Workspaces searched at once in a search across workspaces. */
const WORKSPACE_CONCURRENCY = 4;
/** Most matches a runner answers per call (runner.proto SearchTextRequest.limit). */
const SEARCH_MAX_LIMIT = 1000;

const input = z.object({
  query: z
    .string({ error: "query must be a string" })
    .min(1, { error: "query must not be empty" })
    .max(1000, { error: "query is longer than 1000 characters" })
    .describe("Text to find (literal unless regex is true)."),
  regex: z.boolean().default(false).describe("Treat query as a regular expression (ripgrep / Rust regex syntax)."),
  case_sensitive: z
    .boolean()
    .default(false)
    .describe("Match case exactly; by default case is ignored unless the query has an upper-case letter (smart case)."),
  path: globsArgument,
  include_ignored: z.boolean().default(false).describe("Also search files .gitignore or .ignore exclude."),
  workspace: workspaceArgument,
  workspaces: z
    .union([z.enum(["*", "all"]), z.array(z.string().min(1).max(256)).min(1).max(50)])
    .optional()
    .describe(
      'Search several of your workspaces: a list of ids (at most 50), or "*" (or "all") for all of them; instead of workspace.',
    ),
  limit: limitArgument(50, SEARCH_MAX_LIMIT, "matches"),
  offset: offsetArgument("Index of the first match to return (paging: next_offset of the previous answer)."),
});

const matchOutput = z.object({
  workspace: z.string().describe("The workspace the match is in."),
  file: z.string().describe("Workspace-relative POSIX path."),
  line: z.number().describe("1-based."),
  column: z.number().describe("1-based, Unicode code points."),
  end_line: z.number().describe("1-based (matches lie within one line: equal to line)."),
  end_column: z.number().describe("Exclusive."),
  text: z.string().describe("The matched line, trimmed (cut at 300 code points)."),
  rank: z
    .number()
    .describe(
      "0 declaration in source, 1 other source, 2 tests, 3 vendored/generated/minified code or prose (Markdown, text).",
    ),
});

const output = z.object({
  matches: z.array(matchOutput).describe("Ranked: rank, then workspace, path and position."),
  total: z.number().describe("Matches in all, before paging."),
  total_at_least: z
    .boolean()
    .describe("A search stopped at its cap (10 000 matches per workspace): total is a lower bound."),
  files_with_matches: z.number().describe("Files with at least one match, in all workspaces searched."),
  next_offset: z.number().optional().describe("offset of the next page, when there is one."),
  partial: z.boolean().describe("True when a workspace failed, files were skipped or a cap was hit (see note)."),
  note: z.string().optional().describe("Why the answer is partial: workspaces not searched, caps, unreadable files."),
});

type Output = z.output<typeof output>;
type Args = z.output<typeof input>;

export interface WorkspaceSearch {
  workspace: string;
  answer?: SearchTextAnswer;
  error?: GatewayError;
}

/** Which page of the ranking an answer shows, and which part of it the workspaces' answers hold. */
export interface SearchPage {
  offset: number;
  limit: number;
  /**
   * Index in the ranking of the first match answered: `offset` when one workspace paged on the
   * runner, 0 when each workspace answered its best matches to merge here.
   */
  first: number;
  /** Matches of the merged ranking that can be paged through (a search across workspaces); none = all. */
  window?: number;
}

/** The answers of each workspace merged, ranked and paged. */
export function searchTextAnswer(query: string, searches: WorkspaceSearch[], page: SearchPage): ToolAnswer<Output> {
  const { offset, limit, first, window } = page;
  const all = searches.flatMap(({ workspace, answer }) =>
    (answer?.matches ?? []).map((m) => ({
      workspace,
      file: m.file,
      line: m.range?.start?.line ?? 0,
      column: m.range?.start?.column ?? 0,
      end_line: m.range?.end?.line ?? 0,
      end_column: m.range?.end?.column ?? 0,
      text: m.lineText,
      rank: m.rank,
    })),
  );
  all.sort(
    (a, b) =>
      a.rank - b.rank ||
      compare(a.workspace, b.workspace) ||
      compare(a.file, b.file) ||
      a.line - b.line ||
      a.column - b.column,
  );
  const matches = all.slice(offset - first, offset - first + limit);
  const total = searches.reduce((sum, s) => sum + (s.answer?.total ?? 0), 0);
  const atLeast = searches.some((s) => s.answer?.totalAtLeast);
  const end = offset + matches.length;
  const beyondWindow = window !== undefined && end >= window && end < total;
  const notes = [
    ...searches
      .filter((s) => s.error)
      .map((s) => `workspace '${s.workspace}' was not searched (${s.error!.code}: ${s.error!.message})`),
    ...searches
      .filter((s) => s.answer?.note)
      .map((s) => (searches.length > 1 ? `${s.workspace}: ${s.answer!.note}` : s.answer!.note)),
    ...(beyondWindow
      ? [
          `a search across workspaces pages through its first ${window} matches; for the rest, search one workspace (workspace) or narrow it with path or a longer query`,
        ]
      : []),
  ];
  const partial = searches.some((s) => s.error || s.answer?.partial || s.answer?.totalAtLeast);
  const next = end < total && !beyondWindow ? end : undefined;
  const several = searches.length > 1;
  const listed = matches.map((m) => `  ${several ? `${m.workspace}:` : ""}${m.file}:${m.line}:${m.column}  ${m.text}`);
  const shown = linesThatFit(listed, LISTED_ROOM);
  // The text pages on from what it shows, so that a caller reading only the text misses nothing.
  const textEnd = offset + shown;
  const textNext = shown < matches.length ? textEnd : next;
  const totalText = `${total}${atLeast ? "+" : ""}`;
  const quoted = JSON.stringify(query);
  const header =
    matches.length > 0
      ? `${counted(shown, "match", "matches")} for ${quoted} (${offset + 1}–${textEnd} of ${totalText})${textNext !== undefined ? `; more with offset ${textNext}` : ""}:`
      : total > 0
        ? `No matches at offset ${offset}: ${totalText} for ${quoted} in all.`
        : partial
          ? `No matches found for ${quoted}, but the search was incomplete (see the note).`
          : `No matches for ${quoted}.`;
  return {
    text: lines(
      header,
      ...listed.slice(0, shown),
      textCutNote(shown, matches.length, "match", "matches"),
      notes.length > 0 ? `Note: ${notes.join("; ")}` : undefined,
    ),
    structured: {
      matches,
      total,
      total_at_least: atLeast,
      files_with_matches: searches.reduce((sum, s) => sum + (s.answer?.filesSearchedWithMatches ?? 0), 0),
      ...(next !== undefined ? { next_offset: next } : {}),
      partial,
      ...(notes.length > 0 ? { note: notes.join("; ") } : {}),
    },
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function targetsOf(args: Args, call: ToolCall): Promise<WorkspaceTarget[]> {
  if (args.workspaces === undefined) return [await call.workspace(args.workspace)];
  if (args.workspace !== undefined)
    throw new GatewayError("INVALID_ARGUMENT", "give workspace or workspaces, not both");
  const targets =
    typeof args.workspaces === "string"
      ? await call.visibleWorkspaces()
      : await Promise.all([...new Set(args.workspaces)].map((name) => call.workspace(name)));
  if (targets.length === 0)
    throw new GatewayError("NOT_FOUND", "you have no workspaces to search; workspace_status lists yours");
  return targets;
}

/** What each workspace's runner is asked (runner.proto SearchTextRequest, without the workspace). */
export interface SearchRequest {
  query: string;
  regex: boolean;
  caseSensitive: boolean;
  globs: string[];
  includeIgnored: boolean;
  limit: number;
  offset: number;
}

/** Runner errors that are the caller's, the same in every workspace: they fail the whole search. */
const CALLER_ERRORS: ReadonlySet<string> = new Set(["INVALID_ARGUMENT", "OUTSIDE_WORKSPACE"]);

/** One workspace's search; a failure is kept (and named in the answer) rather than failing the rest. */
export async function searchWorkspace(
  call: ToolCall,
  target: WorkspaceTarget,
  request: SearchRequest,
  keepErrors: boolean,
): Promise<WorkspaceSearch> {
  try {
    const answer = await call.sendForText(target, [], (runner, options) =>
      runner.searchText({ ...request, workspace: target }, options),
    );
    return { workspace: target.workspace, answer };
  } catch (error) {
    const coded = toGatewayError(error);
    if (!keepErrors || !coded || CALLER_ERRORS.has(coded.code)) throw error;
    return { workspace: target.workspace, error: coded };
  }
}

/** Every workspace's search, WORKSPACE_CONCURRENCY at a time, in the order of `targets`. */
async function searchAll(
  call: ToolCall,
  targets: readonly WorkspaceTarget[],
  request: SearchRequest,
): Promise<WorkspaceSearch[]> {
  const several = targets.length > 1;
  const searches: WorkspaceSearch[] = [];
  for (let i = 0; i < targets.length; i += WORKSPACE_CONCURRENCY) {
    const batch = targets.slice(i, i + WORKSPACE_CONCURRENCY);
    searches.push(...(await Promise.all(batch.map((target) => searchWorkspace(call, target, request, several)))));
    if (several) call.progress(`${searches.length} of ${targets.length} workspaces searched`, targets.length);
  }
  // Not one workspace answered: the first failure is the answer (as collectParts does).
  const failed = searches.find((s) => s.error);
  if (failed?.error && searches.every((s) => s.error)) {
    throw new GatewayError(
      failed.error.code,
      `no workspace could be searched; '${failed.workspace}': ${failed.error.message}`,
    );
  }
  return searches;
}

export const searchTextTool = defineTool({
  name: "search_text",
  title: "Search text",
  description:
    'Literal or regex text search (ripgrep) in a workspace or across your workspaces (workspaces: [..] or "*"), .gitignore respected, ' +
    "ranked: declarations in source first, then other source, tests, vendored/generated code and prose docs. Filter paths with globs; paged with limit/offset. " +
    "Use it for strings, comments, config and languages without a language server; use find_references for semantic uses.",
  input,
  output,
  async run(args, call) {
    const targets = await targetsOf(args, call);
    const several = targets.length > 1;
    if (several && args.offset >= SEARCH_MAX_LIMIT) {
      throw new GatewayError(
        "INVALID_ARGUMENT",
        `a search across workspaces pages through its first ${SEARCH_MAX_LIMIT} matches; for the rest, search one workspace (workspace) or narrow it with path`,
      );
    }
    // One workspace pages on the runner. Across workspaces each answers its best offset+limit
    // (at most a runner's page): the merged ranking's first that many are exact.
    const searches = await searchAll(call, targets, {
      query: args.query,
      regex: args.regex,
      caseSensitive: args.case_sensitive,
      globs: globList(args.path),
      includeIgnored: args.include_ignored,
      limit: several ? Math.min(args.offset + args.limit, SEARCH_MAX_LIMIT) : args.limit,
      offset: several ? 0 : args.offset,
    });
    const page = several
      ? { offset: args.offset, limit: args.limit, first: 0, window: SEARCH_MAX_LIMIT }
      : { offset: args.offset, limit: args.limit, first: args.offset };
    return searchTextAnswer(args.query, searches, page);
  },
});
