// search_text: literal or regex search (ripgrep on the runner) in one workspace or across the
// caller's workspaces, ranked — a declaration in source first, then other source, tests, vendored
// or generated code — and paged. The fallback when no language server reads a language.
import type { SearchTextAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { counted } from "../text.js";
import type { ToolCall } from "../toolCall.js";
import { toGatewayError } from "../toolErrors.js";
import { limitArgument, offsetArgument, workspaceArgument } from "../toolSupport/shared.js";
import { globList, globsArgument } from "./listFiles.js";

/** Workspaces searched at once in a search across workspaces. */
const WORKSPACE_CONCURRENCY = 4;

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
    .union([z.literal("*"), z.array(z.string().min(1).max(256)).min(1).max(50)])
    .optional()
    .describe('Search several of your workspaces: a list of ids, or "*" for all of them (instead of workspace).'),
  limit: limitArgument(50, 1000, "matches"),
  offset: offsetArgument("Index of the first match to return (paging: next_offset of the previous answer)."),
});

const matchOutput = z.object({
  workspace: z.string(),
  file: z.string(),
  line: z.number().describe("1-based."),
  column: z.number().describe("1-based, Unicode code points."),
  end_line: z.number(),
  end_column: z.number().describe("Exclusive."),
  text: z.string().describe("The matched line, trimmed."),
  rank: z.number().describe("0 declaration in source, 1 other source, 2 tests, 3 vendored/generated/minified."),
});

const output = z.object({
  matches: z.array(matchOutput).describe("Ranked: rank, then workspace, path and position."),
  total: z.number().describe("Matches in all, before paging."),
  total_at_least: z
    .boolean()
    .describe("A search stopped at its cap (10 000 matches per workspace): total is a lower bound."),
  files_with_matches: z.number(),
  next_offset: z.number().optional(),
  partial: z.boolean().describe("True when a workspace failed, files were skipped or a cap was hit (see note)."),
  note: z.string().optional(),
});

type Output = z.output<typeof output>;
type Args = z.output<typeof input>;

export interface WorkspaceSearch {
  workspace: string;
  answer?: SearchTextAnswer;
  error?: string;
}

/** The answers of each workspace merged, ranked and paged. */
export function searchTextAnswer(
  query: string,
  searches: WorkspaceSearch[],
  offset: number,
  limit: number,
): ToolAnswer<Output> {
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
  const matches = all.slice(offset, offset + limit);
  const total = searches.reduce((sum, s) => sum + (s.answer?.total ?? 0), 0);
  const atLeast = searches.some((s) => s.answer?.totalAtLeast);
  const notes = [
    ...searches.filter((s) => s.error).map((s) => `workspace '${s.workspace}' was not searched: ${s.error}`),
    ...searches
      .filter((s) => s.answer?.note)
      .map((s) => (searches.length > 1 ? `${s.workspace}: ${s.answer!.note}` : s.answer!.note)),
  ];
  const partial = notes.length > 0 || atLeast || searches.some((s) => s.answer?.partial);
  const end = offset + matches.length;
  const next = end < total && end < all.length ? end : undefined;
  const several = searches.length > 1;
  const where = (m: (typeof all)[number]) => `${several ? `${m.workspace}:` : ""}${m.file}:${m.line}:${m.column}`;
  const totalText = `${total}${atLeast ? "+" : ""}`;
  const header =
    matches.length === 0
      ? partial
        ? `No matches found for ${JSON.stringify(query)}, but the search was incomplete.`
        : total > 0
          ? `No matches at offset ${offset}: ${totalText} in all.`
          : `No matches for ${JSON.stringify(query)}.`
      : `${counted(matches.length, "match", "matches")} for ${JSON.stringify(query)} (${offset + 1}–${end} of ${totalText})${next !== undefined ? `; more with offset ${next}` : ""}:`;
  const text = [
    header,
    ...matches.map((m) => `  ${where(m)}  ${m.text}`),
    ...(notes.length > 0 ? [`Note: ${notes.join("; ")}`] : []),
  ].join("\n");
  return {
    text,
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
  if (args.workspaces === "*") return call.visibleWorkspaces();
  return Promise.all(args.workspaces.map((name) => call.workspace(name)));
}

/** One workspace's search; a failure is kept (and named in the answer) rather than failing the rest. */
export async function searchWorkspace(
  call: ToolCall,
  target: WorkspaceTarget,
  request: {
    query: string;
    regex: boolean;
    caseSensitive: boolean;
    globs: string[];
    includeIgnored: boolean;
    limit: number;
  },
  keepErrors: boolean,
): Promise<WorkspaceSearch> {
  try {
    const answer = await call.sendForText(target, [], (runner, options) =>
      runner.searchText({ workspace: target, offset: 0, ...request }, options),
    );
    return { workspace: target.workspace, answer };
  } catch (error) {
    const coded = toGatewayError(error);
    if (!keepErrors || !coded) throw error;
    return { workspace: target.workspace, error: `${coded.code}: ${coded.message}` };
  }
}

export const searchTextTool = defineTool({
  name: "search_text",
  title: "Search text",
  description:
    'Literal or regex text search (ripgrep) in a workspace or across your workspaces (workspaces: [..] or "*"), .gitignore respected, ' +
    "ranked: declarations in source first, then other source, tests, vendored/generated code. Filter paths with globs; paged with limit/offset. " +
    "Use it for strings, comments, config and languages without a language server; use find_references for semantic uses.",
  input,
  output,
  async run(args, call) {
    const targets = await targetsOf(args, call);
    // Each workspace answers its best offset+limit: enough to page the merged ranking.
    const request = {
      query: args.query,
      regex: args.regex,
      caseSensitive: args.case_sensitive,
      globs: globList(args.path),
      includeIgnored: args.include_ignored,
      limit: Math.min(args.offset + args.limit, 1000),
    };
    const several = targets.length > 1;
    const searches: WorkspaceSearch[] = [];
    for (let i = 0; i < targets.length; i += WORKSPACE_CONCURRENCY) {
      const batch = targets.slice(i, i + WORKSPACE_CONCURRENCY);
      searches.push(...(await Promise.all(batch.map((target) => searchWorkspace(call, target, request, several)))));
      call.progress(`${searches.length} of ${targets.length} workspaces searched`, targets.length);
    }
    return searchTextAnswer(args.query, searches, args.offset, args.limit);
  },
});
