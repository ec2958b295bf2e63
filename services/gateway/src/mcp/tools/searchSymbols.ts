// search_symbols: symbols matching a query across every workspace the caller may see. Answers
// from the symbol indexes the runners keep live in NATS JetStream (no language server needed at
// query time); a workspace without an index yet is asked live (labelled partial), and files of
// languages with no index source give text matches, listed apart from the declarations.
import type { SymbolIndexMeta } from "@lspmesh/events";
import { kindRank, type WorkspaceSymbol, type WorkspaceSymbolsAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { unindexedFiles } from "../../symbols/indexGaps.js";
import { type IndexFilters, type IndexHit, searchIndexes } from "../../symbols/indexSearch.js";
import { compilePathGlob, MAX_PATH_GLOB_LENGTH, PathGlobError } from "../../symbols/pathGlob.js";
import { matchName } from "../../symbols/symbolMatch.js";
import type { WorkspaceIndexView } from "../../symbols/tenantIndex.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { counted, lines } from "../text.js";
import type { ToolCall } from "../toolCall.js";
import {
  type AnswerStatusOutput,
  answerStatusShape,
  declaredSymbolFrom,
  type LocationOutput,
  limitArgument,
  locationOutput,
  mergeStatuses,
  statusFrom,
} from "../toolSupport/shared.js";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/** Deadline of the live fallback's scatter, in ms (or the gateway's call deadline when that is shorter). */
export const SEARCH_DEADLINE_MS = 10_000;
/** Workspaces without an index asked live in one call, at most; more are reported as skipped. */
export const MAX_WORKSPACES = 200;
/** Workspaces named in one call (workspaces argument), at most. */
const MAX_NAMED_WORKSPACES = 10_000;

const input = z.object({
  query: z
    .string({ error: "query must be a string" })
    .min(1, { error: "query must not be empty; give part of a symbol name" })
    .max(256, { error: "query is longer than 256 characters" })
    .describe("Symbol name or part of it: exact, prefix, camel-case (gSP for getServerProps) or fuzzy."),
  workspaces: z
    .array(z.string().min(1).max(256))
    .max(MAX_NAMED_WORKSPACES)
    .optional()
    .describe("Only these of your workspaces; omit to search all of them."),
  language: z.string().min(1).max(64).optional().describe("Only symbols of this language id, e.g. typescript."),
  kind: z
    .array(z.string().min(1).max(32))
    .max(26)
    .optional()
    .describe('Only these kinds, e.g. ["class", "interface"] (names as in the answers).'),
  path: z
    .string()
    .min(1)
    .max(MAX_PATH_GLOB_LENGTH, { error: `path is longer than ${MAX_PATH_GLOB_LENGTH} characters; e.g. src/**/*.ts` })
    .optional()
    .describe("Only files whose workspace-relative path matches this glob, e.g. src/**/*.ts."),
  exported: z.boolean().optional().describe("Only exported declarations (true): what a file or a namespace exports."),
  limit: limitArgument(DEFAULT_LIMIT, MAX_LIMIT, "symbols after ranking"),
});

type Input = z.output<typeof input>;

const OUTCOMES = ["ok", "indexing", "partial", "failed", "timeout", "skipped"] as const;

/** One declaration found (find_symbol extends it). */
export const symbolOutput = z.object({
  workspace: z.string(),
  name: z.string(),
  kind: z.string(),
  container: z.string().optional(),
  exported: z.boolean().optional().describe("Exported from its file or namespace (absent when answered live)."),
  language: z.string().optional(),
  source: z
    .string()
    .describe(
      "Where it came from: typescript-syntax or lsp-document-symbol (the symbol index), live (a language server, asked because the workspace has no index yet).",
    ),
  location: locationOutput,
});

type SymbolOutput = z.output<typeof symbolOutput>;

const textMatchOutput = z.object({
  workspace: z.string(),
  name: z.string().describe("The word found (a text match, not a declaration)."),
  language: z.string(),
  location: locationOutput,
});

const indexOutput = z.object({
  state: z.enum(["indexing", "ready"]),
  epoch: z.number().int().describe("Workspace change epoch the index reflects (ms since the Unix epoch)."),
  updated_at: z.string().describe("When the index last changed (ISO 8601)."),
  files: z.number().int(),
  symbols: z.number().int(),
  progress: z
    .object({ done: z.number().int(), total: z.number().int() })
    .optional()
    .describe("Files indexed of the current build, while indexing."),
  skipped_files: z.number().int().optional().describe("Files not indexed: too large, binary, failing, over the cap."),
  polled: z
    .object({ folders: z.number().int(), every_ms: z.number().int() })
    .optional()
    .describe("Folders not watched (the tenant's watch budget is spent): changes there are found by polling."),
});

const workspaceOutcomeOutput = z.object({
  workspace: z.string(),
  outcome: z
    .enum(OUTCOMES)
    .describe(
      "ok (complete index); indexing (its index is being built: progress says how far); partial (no index yet: asked live, or its server was not ready; or matches in files indexed only as words, or files its server failed on: see message); failed or timeout (no answer: see code); skipped (over the limit).",
    ),
  source: z.enum(["index", "live", "none"]),
  code: z.string().optional(),
  message: z.string().optional(),
  count: z.number().int().describe("Matches in it, before the limit."),
  index: indexOutput.optional(),
});

type WorkspaceOutcome = z.output<typeof workspaceOutcomeOutput>;

const output = z.object({
  ...answerStatusShape,
  query: z.string(),
  symbols: z
    .array(symbolOutput)
    .describe(
      "Declarations, ranked: exact, prefix, camel-case, substring, fuzzy; exported first; then kind and path depth.",
    ),
  total: z.number().int().describe("Declarations matching before the limit."),
  text_matches: z
    .array(textMatchOutput)
    .describe("Words found in files of languages with no index source (text, not declarations), ranked apart."),
  text_total: z.number().int(),
  workspaces: z
    .array(workspaceOutcomeOutput)
    .describe("Every workspace searched (or not), with its outcome and index freshness."),
});

export interface WorkspaceResult {
  workspace: string;
  answers: WorkspaceSymbolsAnswer[];
  error?: GatewayError;
  missing?: string[];
}

/** A symbol of either origin, with what ranking needs. */
interface Ranked {
  output: SymbolOutput;
  match: number;
  exported: boolean;
  depth: number;
}

export interface SearchParts {
  query: string;
  limit: number;
  /** Workspaces answered from their index, with the view searched. */
  indexed: ReadonlyArray<{ workspace: string; view: WorkspaceIndexView }>;
  /** Workspaces asked live (no index), with their answers. */
  live: readonly WorkspaceResult[];
  /** Workspaces neither indexed nor asked (over the live limit). */
  skipped: readonly string[];
  filters: IndexFilters;
  /** Filters the live answers cannot honour (exported): named in the note. */
  liveCaveat?: string;
}

export function searchAnswer(parts: SearchParts): ToolAnswer<z.output<typeof output>> {
  const { query, limit, filters } = parts;
  const found = searchIndexes(parts.indexed, query, filters, limit);
  const live = parts.live.map((result) => liveSearched(result, query, filters, parts.liveCaveat));
  const outcomes = [
    ...parts.indexed.map(({ workspace, view }) =>
      indexedOutcome(workspace, view, found.counts.get(workspace) ?? 0, found.textLanguages.get(workspace)),
    ),
    ...live.map((searched) => searched.outcome),
    ...parts.skipped.map(skippedOutcome),
  ];
  const statuses = [...indexStatus(parts.indexed), ...live.flatMap((searched) => searched.status ?? [])];
  const ranked = [...found.symbols.map(rankedHit), ...live.flatMap((searched) => searched.symbols)];
  const total = live.reduce((sum, searched) => sum + searched.outcome.count, found.total);
  const gaps = outcomes.filter((outcome) => outcome.outcome !== "ok");
  const status = searchStatus(statuses, outcomes, gaps);
  const symbols = ranked
    .sort(compareRanked)
    .slice(0, limit)
    .map((item) => item.output);
  const textMatches = found.textMatches.map((hit) => ({
    workspace: hit.workspace,
    name: hit.symbol.name,
    language: hit.language,
    location: locationOf(hit),
  }));
  const text = lines(
    searchHeader(query, symbols.length, total, outcomes.length, gaps.length > 0),
    ...symbols.map(symbolLine),
    ...textMatchLines(textMatches, found.textTotal),
    ...gapLines(gaps),
  );
  return {
    text,
    structured: {
      ...status,
      query,
      symbols,
      total,
      text_matches: textMatches,
      text_total: found.textTotal,
      workspaces: outcomes,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Per workspace: its outcome, and what it adds to the answer

/** A workspace asked live: its outcome, the status of its servers, and its matches. */
interface LiveSearched {
  outcome: WorkspaceOutcome;
  status?: AnswerStatusOutput;
  symbols: Ranked[];
}

/**
 * A workspace searched in its index: ok when complete; indexing while built; partial when what
 * matched includes words of files indexed as text (their server was not running: declarations
 * there are unknown), or files whose server failed to list their declarations.
 */
function indexedOutcome(
  workspace: string,
  view: WorkspaceIndexView,
  count: number,
  textLanguages: ReadonlySet<string> = new Set(),
): WorkspaceOutcome {
  const meta = view.meta;
  const complete = meta?.state === "ready";
  const outcome: WorkspaceOutcome = { workspace, outcome: complete ? "ok" : "indexing", source: "index", count };
  if (meta) {
    outcome.index = indexFreshness(meta, complete);
    const unknown: string[] = [];
    if (textLanguages.size > 0) {
      const languages = [...textLanguages].sort().join(", ");
      unknown.push(
        `its ${languages} files are indexed as words until their server runs: declarations there are not known yet (close word matches are listed as text matches; find_symbol asks the server live)`,
      );
    }
    const passedOver = unindexedFiles(meta);
    if (passedOver) unknown.push(passedOver);
    if (complete && unknown.length > 0) {
      outcome.outcome = "partial";
      outcome.message = unknown.join("; ");
    }
    if (meta.polled && complete) {
      const polled = `${meta.polled.folders} of its folders are polled every ${Math.round(meta.polled.everyMs / 1000)} s instead of watched (the tenant's file-watch budget is spent): changes there may take that long to be found`;
      outcome.message = outcome.message ? `${outcome.message}; ${polled}` : polled;
    }
  }
  if (!complete) {
    outcome.message = meta
      ? `its symbol index is being built: ${meta.done} of ${meta.total} files`
      : "its symbol index is being built";
  }
  return outcome;
}

function indexFreshness(meta: SymbolIndexMeta, complete: boolean): NonNullable<WorkspaceOutcome["index"]> {
  const skippedFiles = meta.skipped.tooLarge + meta.skipped.binary + meta.skipped.failed + meta.skipped.overCap;
  return {
    state: meta.state,
    epoch: meta.epoch,
    updated_at: new Date(meta.updatedAt).toISOString(),
    files: meta.files,
    symbols: meta.symbols,
    ...(complete ? {} : { progress: { done: meta.done, total: meta.total } }),
    ...(skippedFiles > 0 ? { skipped_files: skippedFiles } : {}),
    ...(meta.polled ? { polled: { folders: meta.polled.folders, every_ms: meta.polled.everyMs } } : {}),
  };
}

/** The symbol index as one answering server: ready, over the languages of the indexed files. */
export function indexStatus(indexed: SearchParts["indexed"]): AnswerStatusOutput[] {
  if (indexed.length === 0) return [];
  const languages = new Set<string>();
  for (const { view } of indexed) for (const file of view.files.values()) languages.add(file.entry.language);
  return [{ state: "ready", partial: false, language: [...languages].sort().join(", "), server: "symbol index" }];
}

function liveSearched(
  result: WorkspaceResult,
  query: string,
  filters: IndexFilters,
  caveat: string | undefined,
): LiveSearched {
  const { workspace, error } = result;
  if (error) {
    const outcome = error.code === "TIMEOUT" ? "timeout" : "failed";
    return {
      outcome: { workspace, outcome, source: "live", code: error.code, message: error.message, count: 0 },
      symbols: [],
    };
  }
  const status = mergeStatuses(
    result.answers.map((answer) => statusFrom(answer.status)),
    result.missing ?? [],
  );
  const symbols = result.answers
    .flatMap((answer) => answer.symbols)
    .map((symbol) => rankedLive(workspace, symbol, query))
    .filter(({ output: symbol }) => liveSymbolPasses(symbol, filters));
  // The runner ranks before its limit and counts every match (older runners: what they sent).
  const sent = result.answers.reduce((sum, answer) => sum + answer.symbols.length, 0);
  const matched = result.answers.reduce((sum, answer) => sum + Math.max(answer.total, answer.symbols.length), 0);
  const count = symbols.length + Math.max(0, matched - sent);
  const message = ["no symbol index yet (it is being built): asked its language server", status.note, caveat]
    .filter(Boolean)
    .join("; ");
  return { outcome: { workspace, outcome: "partial", source: "live", count, message }, status, symbols };
}

function skippedOutcome(workspace: string): WorkspaceOutcome {
  return {
    workspace,
    outcome: "skipped",
    source: "none",
    message: `no symbol index yet, and only ${MAX_WORKSPACES} such workspaces are asked live per call; name them with workspaces`,
    count: 0,
  };
}

/** The answering servers' status, partial when a workspace is not complete. */
function searchStatus(
  statuses: readonly AnswerStatusOutput[],
  outcomes: readonly WorkspaceOutcome[],
  gaps: readonly WorkspaceOutcome[],
): AnswerStatusOutput {
  const missingNote = gaps.map(
    (gap) =>
      `${gap.workspace}: ${gap.outcome}${gap.code ? ` (${gap.code})` : ""}${gap.message ? ` — ${gap.message}` : ""}`,
  );
  const status = mergeStatuses(statuses, missingNote.length > 0 ? [`not complete: ${missingNote.join(", ")}`] : []);
  if (statuses.length === 0 && outcomes.length === 0) {
    status.state = "ready";
    status.partial = false;
    status.note = "no workspaces to search";
  }
  return status;
}

// ---------------------------------------------------------------------------------------------
// Text

function searchHeader(query: string, shown: number, total: number, workspaces: number, gaps: boolean): string {
  if (shown > 0) {
    const more = total > shown ? `; showing the best ${shown} (raise limit for more)` : "";
    return `${counted(total, "symbol")} matching "${query}" in ${counted(workspaces, "workspace")}${more}:`;
  }
  return gaps
    ? `No symbols matching "${query}" found so far; some workspaces are not complete (see below for why).`
    : `No symbols match "${query}" in ${counted(workspaces, "workspace")}.`;
}

function symbolLine(symbol: SymbolOutput): string {
  const container = symbol.container ? ` (in ${symbol.container})` : "";
  const { file, line, column } = symbol.location;
  return `${symbol.kind.replaceAll("_", " ")} ${symbol.name}${container}  ${symbol.workspace}:${file}:${line}:${column}`;
}

function textMatchLines(matches: ReadonlyArray<z.output<typeof textMatchOutput>>, total: number): string[] {
  if (matches.length === 0) return [];
  return [
    "",
    `Text matches (${total}; words of files indexed as text, whose language has no symbol source or whose server has not run yet; not declarations):`,
    ...matches.map(
      (match) =>
        `${match.name}  ${match.workspace}:${match.location.file}:${match.location.line}:${match.location.column}`,
    ),
  ];
}

function gapLines(gaps: readonly WorkspaceOutcome[]): string[] {
  if (gaps.length === 0) return [];
  return [
    "",
    `Partial: ${counted(gaps.length, "workspace")} not complete:`,
    ...gaps.map(
      (gap) =>
        `- ${gap.workspace}: ${gap.outcome}${gap.code ? ` ${gap.code}` : ""}${gap.message ? `: ${gap.message}` : ""}`,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------
// Ranking

function rankedLive(workspace: string, symbol: WorkspaceSymbol, query: string): Ranked {
  const { name, kind, location } = declaredSymbolFrom(symbol);
  const out: SymbolOutput = { workspace, name, kind, source: "live", location };
  if (symbol.containerName) out.container = symbol.containerName;
  const match = matchName(symbol.name, symbol.name.toLowerCase(), query, query.toLowerCase());
  return { output: out, match: match < 0 ? 7 : match, exported: false, depth: depthOf(out.location.file) };
}

function rankedHit(hit: IndexHit): Ranked {
  const { symbol } = hit;
  const out: SymbolOutput = {
    workspace: hit.workspace,
    name: symbol.name,
    kind: symbol.kind,
    exported: symbol.exported,
    language: hit.language,
    source: hit.source,
    location: locationOf(hit),
  };
  if (symbol.container) out.container = symbol.container;
  return { output: out, match: hit.match, exported: symbol.exported, depth: hit.depth };
}

function locationOf(hit: IndexHit): LocationOutput {
  const { symbol } = hit;
  return {
    file: hit.file,
    line: symbol.line,
    column: symbol.column,
    end_line: symbol.endLine,
    end_column: symbol.endColumn,
    snippet: symbol.snippet,
  };
}

function compareRanked(a: Ranked, b: Ranked): number {
  const x = a.output;
  const y = b.output;
  return (
    a.match - b.match ||
    Number(b.exported) - Number(a.exported) ||
    kindRank(x.kind) - kindRank(y.kind) ||
    a.depth - b.depth ||
    x.name.length - y.name.length ||
    (x.name < y.name ? -1 : x.name > y.name ? 1 : 0) ||
    (x.workspace < y.workspace ? -1 : x.workspace > y.workspace ? 1 : 0) ||
    (x.location.file < y.location.file ? -1 : x.location.file > y.location.file ? 1 : 0) ||
    x.location.line - y.location.line
  );
}

function depthOf(file: string): number {
  return file.split("/").length - 1;
}

function liveSymbolPasses(symbol: SymbolOutput, filters: IndexFilters): boolean {
  if (filters.kinds && !filters.kinds.has(symbol.kind)) return false;
  if (filters.path && !filters.path(symbol.location.file)) return false;
  return true;
}

function filtersOf(args: Input): IndexFilters {
  const filters: IndexFilters = {};
  if (args.language) filters.languages = new Set([args.language]);
  if (args.kind) filters.kinds = new Set(args.kind.map((kind) => kind.toLowerCase().replaceAll(" ", "_")));
  if (args.path) {
    const glob = args.path;
    try {
      // Linear-time matching (RE2): a caller's glob cannot stall the event loop (pathGlob.ts).
      filters.path = compilePathGlob(glob);
    } catch (error) {
      if (!(error instanceof PathGlobError)) throw error;
      throw new GatewayError("INVALID_ARGUMENT", `path '${glob.slice(0, 100)}' ${error.message}`);
    }
  }
  if (args.exported) filters.exportedOnly = true;
  return filters;
}

/** What a live search asks a workspace's servers (workspace_symbols). */
export type LiveQuery = Pick<Input, "query" | "limit" | "language">;

/** One workspace without an index asked live (workspace_symbols); failures are returned, not thrown. */
export async function searchLive(
  call: ToolCall,
  target: WorkspaceTarget,
  args: LiveQuery,
  deadlineMs: number,
): Promise<WorkspaceResult> {
  try {
    const parts = await call.sendToWorkspace(
      target,
      (runner, options, group) =>
        runner.workspaceSymbols(
          { workspace: target, query: args.query, limit: args.limit, languages: group.filter(Boolean) },
          options,
        ),
      // No failover: a cold start on another runner cannot finish under the search deadline, and
      // hundreds of them at once would swamp the pool; the workspace is labelled instead.
      {
        timeoutMs: deadlineMs,
        progress: false,
        failover: false,
        ...(args.language ? { languages: [args.language] } : {}),
      },
    );
    const answers = parts.filter((part) => part.answer).map((part) => part.answer!);
    const failed = parts.filter((part) => part.error);
    if (answers.length === 0 && failed.length > 0)
      return { workspace: target.workspace, answers, error: failed[0]!.error! };
    const missing = failed.map((part) => `${part.languages.join(", ")}: ${part.error!.code}`);
    return { workspace: target.workspace, answers, missing };
  } catch (error) {
    if (error instanceof GatewayError) return { workspace: target.workspace, answers: [], error };
    throw error;
  }
}

/** The workspaces with a symbol index (and its view), and those without one yet (asked live). */
export async function splitByIndex(
  call: ToolCall,
  targets: readonly WorkspaceTarget[],
): Promise<{ indexed: Array<{ workspace: string; view: WorkspaceIndexView }>; unindexed: WorkspaceTarget[] }> {
  // Only the caller's own tenant's indexes can be loaded (ToolCall.symbolIndex).
  const index = await call.symbolIndex();
  const indexed: Array<{ workspace: string; view: WorkspaceIndexView }> = [];
  const unindexed: WorkspaceTarget[] = [];
  for (const target of targets) {
    const view = index?.workspaces.get(target.workspace);
    if (view?.meta) indexed.push({ workspace: target.workspace, view });
    else unindexed.push(target);
  }
  return { indexed, unindexed };
}

export const searchSymbolsTool = defineTool({
  name: "search_symbols",
  title: "Search symbols everywhere",
  description:
    "Find classes, functions, types and other declarations by name across every workspace you may use (cluster-wide), from the symbol index the runners keep live (no language server has to be running). " +
    "Matching is exact, prefix, camel-case (gSP finds getServerProps) and fuzzy; results are ranked (exact name, exported, kind, path depth) before the limit, total counts every match; filter by language, kind, path glob, exported or workspaces. " +
    "Each result names its workspace, file, 1-based line and column. Workspaces still indexing, or without an index yet (asked live), are listed with partial=true, never silently dropped; text_matches are word matches in files of languages without a symbol source, kept apart.",
  input,
  output,
  async run(args, call) {
    const filters = filtersOf(args);
    let targets = await call.visibleWorkspaces();
    if (args.workspaces) {
      const wanted = new Set(args.workspaces);
      const unknown = args.workspaces.filter((name) => !targets.some((target) => target.workspace === name));
      if (unknown.length > 0)
        throw new GatewayError(
          "NOT_FOUND",
          `unknown workspace '${unknown[0]}'; call workspace_status without a workspace to list yours`,
        );
      targets = targets.filter((target) => wanted.has(target.workspace));
    }
    const { indexed, unindexed } = await splitByIndex(call, targets);
    const skipped = unindexed.slice(MAX_WORKSPACES).map((target) => target.workspace);
    const askLive = unindexed.slice(0, MAX_WORKSPACES);
    let answered = 0;
    const live = await Promise.all(
      askLive.map(async (target) => {
        const result = await searchLive(call, target, args, Math.min(SEARCH_DEADLINE_MS, call.callTimeoutMs));
        answered += 1;
        call.progress(`${answered} of ${askLive.length} workspaces without an index answered`, askLive.length);
        return result;
      }),
    );
    return searchAnswer({
      query: args.query,
      limit: args.limit,
      indexed,
      live,
      skipped,
      filters,
      ...(args.exported ? { liveCaveat: "exported is not known for live answers: they are not filtered by it" } : {}),
    });
  },
});
