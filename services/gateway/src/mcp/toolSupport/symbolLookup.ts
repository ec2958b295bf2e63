// Declarations by name across workspaces (find_symbol, positions given by symbol without a file):
// from the symbol index where a workspace has one (as search_symbols reads it), else from its
// language servers asked live (workspace_symbols), labelled partial and saying so. A language whose
// files the index holds only as text (its server was not running) is asked live too when those
// files may declare the name: the index cannot tell, and a miss there is no answer.
import { memberOfQualifiedName } from "@lspmesh/events";
import {
  addLiveDeclaration,
  type DeclarationFilters,
  type DeclarationMatches,
  findIndexedDeclarations,
  type NameQuery,
  undecidedTextLanguages,
} from "../../symbols/declarationLookup.js";
import { unindexedFiles } from "../../symbols/indexGaps.js";
import type { WorkspaceIndexView } from "../../symbols/tenantIndex.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import type { ToolCall } from "../toolCall.js";
import {
  indexStatus,
  MAX_WORKSPACES,
  SEARCH_DEADLINE_MS,
  searchLive,
  splitByIndex,
  type WorkspaceResult,
} from "../tools/searchSymbols.js";
import { type AnswerStatusOutput, declaredSymbolFrom, mergeStatuses, statusFrom } from "./shared.js";

/** Declarations a workspace's servers are asked for when it has no index (they rank exact names first). */
const LIVE_LIMIT = 200;

export interface DeclarationLookup {
  matches: DeclarationMatches;
  /** The symbol index as the answering "server", merged with the live answers; partial when not complete. */
  status: AnswerStatusOutput;
  /**
   * Whether what the lookup lacks comes with time: an index being built, workspaces or languages
   * asked live because their index is not there yet, a server not ready. Not for files the index
   * passed over (too large, over the cap): asking again finds no more there.
   */
  settling: boolean;
}

export async function lookupDeclarations(
  call: ToolCall,
  targets: readonly WorkspaceTarget[],
  query: NameQuery,
  filters: DeclarationFilters,
): Promise<DeclarationLookup> {
  const { indexed, unindexed } = await splitByIndex(call, targets);
  const matches = findIndexedDeclarations(indexed, query, filters);
  const gaps = indexed.flatMap(({ workspace, view }) => indexingGap(workspace, view));
  const askLive = unindexed.slice(0, MAX_WORKSPACES);
  const skipped = unindexed.slice(MAX_WORKSPACES);
  if (skipped.length > 0) {
    gaps.push(
      `${skipped.length} workspaces without a symbol index were not searched (at most ${MAX_WORKSPACES} are asked live per call); name one with workspace`,
    );
  }
  const deadline = Math.min(SEARCH_DEADLINE_MS, call.callTimeoutMs);
  const textOnly = undecidedTextLanguages(indexed, query.name).flatMap(({ workspace, language }) => {
    const target = targets.find((each) => each.workspace === workspace);
    return target ? [{ target, language }] : [];
  });
  const results = await Promise.all([
    ...askLive.map(async (target) => ({
      result: await searchLive(call, target, { query: query.name, limit: LIVE_LIMIT }, deadline),
      asked: "no symbol index yet (it is being built): asked its language servers live",
    })),
    ...textOnly.map(async ({ target, language }) => ({
      result: await searchLive(call, target, { query: query.name, limit: LIVE_LIMIT, language }, deadline),
      asked: `its ${language} files are indexed as text until the ${language} server runs: asked that server live`,
    })),
  ]);
  const liveStatuses = results.flatMap(({ result, asked }) =>
    addLiveResult(matches, query, filters, result, asked, gaps),
  );
  const statuses = [...indexStatus(indexed), ...liveStatuses];
  const status = mergeStatuses(statuses, gaps);
  if (statuses.length === 0 && gaps.length === 0) {
    Object.assign(status, { state: "ready", partial: false, server: "symbol index" });
  }
  // A server that is not installed will not be there next time either.
  const settling =
    results.some(({ result }) => result.error?.code !== "NO_LANGUAGE_SERVER") ||
    indexed.some(({ view }) => view.meta !== undefined && view.meta.state !== "ready") ||
    statuses.some((each) => each.state !== "ready");
  return { matches, status, settling };
}

/** What a workspace's index does not know yet: files still to index, files it passed over. */
function indexingGap(workspace: string, view: WorkspaceIndexView): string[] {
  const meta = view.meta;
  if (!meta) return [];
  const gaps: string[] = [];
  if (meta.state !== "ready")
    gaps.push(`${workspace}: its symbol index is being built (${meta.done} of ${meta.total} files)`);
  const passedOver = unindexedFiles(meta);
  if (passedOver) gaps.push(`${workspace}: ${passedOver}`);
  return gaps;
}

/**
 * Adds a live answer's matching declarations; returns its servers' statuses and notes its gaps
 * (`asked`: why the workspace was asked live).
 */
function addLiveResult(
  matches: DeclarationMatches,
  query: NameQuery,
  filters: DeclarationFilters,
  result: WorkspaceResult,
  asked: string,
  gaps: string[],
): AnswerStatusOutput[] {
  const { workspace } = result;
  if (result.error) {
    gaps.push(`${workspace}: ${asked}, and that failed (${result.error.code}: ${result.error.message})`);
    return [];
  }
  gaps.push(`${workspace}: ${asked}`);
  for (const missing of result.missing ?? []) gaps.push(`${workspace}: ${missing} not answered`);
  for (const answer of result.answers) {
    const language = answer.status?.language || undefined;
    // The server ranks exact names first, but more of them than the limit cannot all be read.
    if (answer.total > answer.symbols.length) {
      gaps.push(
        `${workspace}: its ${language ?? "language"} server matched ${answer.total} names and only the best ${answer.symbols.length} were read, so more declarations may have the name; search_symbols pages through them`,
      );
    }
    for (const symbol of answer.symbols) {
      const { name: named, kind, location } = declaredSymbolFrom(symbol);
      // gopls names members with their type (Command.Execute): searched by the member's own name.
      const member = memberOfQualifiedName(language ?? "", named, kind);
      const name = member?.name ?? named;
      const container = member?.container ?? symbol.containerName;
      addLiveDeclaration(matches, query, filters, {
        workspace,
        file: location.file,
        language,
        symbol: {
          name,
          kind,
          ...(container ? { container } : {}),
          line: location.line,
          column: location.column,
          endLine: location.end_line,
          endColumn: location.end_column,
          exported: false,
          snippet: location.snippet,
        },
      });
    }
  }
  return result.answers.map((answer) => statusFrom(answer.status));
}
