// Searches loaded symbol indexes: every declaration of the given workspaces is matched (symbolMatch.ts),
// counted (a true total) and ranked before the limit cuts: match class, exported first, kind
// (types before functions before members before variables), shallower paths, shorter names, then
// name, workspace, file and line. Text matches (source "text") are kept apart, never mixed in.
import type { IndexedSymbol, SymbolIndexSource } from "@lspmesh/events";
import { kindRank } from "@lspmesh/proto";
import { type MatchClass, matchName, matchWord } from "./symbolMatch.js";
import type { WorkspaceIndexView } from "./tenantIndex.js";

export interface IndexFilters {
  /** Only these languages (ids, e.g. typescript). */
  languages?: ReadonlySet<string>;
  /** Only these kinds (tool-contract names, e.g. class). */
  kinds?: ReadonlySet<string>;
  /** Only files for which this says true (a path glob). */
  path?: (file: string) => boolean;
  /** Only exported top-level declarations. */
  exportedOnly?: boolean;
}

export interface IndexHit {
  workspace: string;
  file: string;
  language: string;
  source: SymbolIndexSource;
  symbol: IndexedSymbol;
  match: MatchClass;
  depth: number;
}

export interface IndexSearchResult {
  /** The best `limit` declarations, ranked. */
  symbols: IndexHit[];
  /** Declarations matching, before the limit. */
  total: number;
  /** The best `limit` text matches, ranked apart. */
  textMatches: IndexHit[];
  textTotal: number;
  /** Matches per workspace (declarations and text matches). */
  counts: Map<string, number>;
}

/** Kind ranks used for buckets: 0..KIND_RANKS-1 (kindRank's "unknown" included). */
const KIND_RANKS = 8;

export function searchIndexes(
  views: ReadonlyArray<{ workspace: string; view: WorkspaceIndexView }>,
  query: string,
  filters: IndexFilters,
  limit: number,
): IndexSearchResult {
  const lowerQuery = query.toLowerCase();
  // Hits bucketed by (match class, exported, kind rank): only the buckets the limit reaches are sorted.
  const buckets: IndexHit[][] = [];
  const textHits: IndexHit[] = [];
  const counts = new Map<string, number>();
  let total = 0;
  for (const { workspace, view } of views) {
    let count = 0;
    for (const file of view.files.values()) {
      const { entry } = file;
      if (filters.languages && !filters.languages.has(entry.language)) continue;
      if (filters.path && !filters.path(entry.file)) continue;
      const text = entry.source === "text";
      if (text && (filters.kinds || filters.exportedOnly)) continue;
      const { symbols } = entry;
      for (let i = 0; i < symbols.length; i++) {
        const symbol = symbols[i]!;
        const match = text
          ? matchWord(symbol.name, file.lower[i]!, query, lowerQuery)
          : matchName(symbol.name, file.lower[i]!, query, lowerQuery);
        if (match < 0) continue;
        if (filters.kinds && !filters.kinds.has(symbol.kind)) continue;
        if (filters.exportedOnly && !symbol.exported) continue;
        const hit: IndexHit = {
          workspace,
          file: entry.file,
          language: entry.language,
          source: entry.source,
          symbol,
          match: match as MatchClass,
          depth: file.depth,
        };
        count++;
        if (text) {
          textHits.push(hit);
          continue;
        }
        total++;
        const key =
          (match * 2 + (symbol.exported ? 0 : 1)) * KIND_RANKS + Math.min(kindRank(symbol.kind), KIND_RANKS - 1);
        const bucket = buckets[key];
        if (bucket) bucket.push(hit);
        else buckets[key] = [hit];
      }
    }
    counts.set(workspace, count);
  }
  const symbols: IndexHit[] = [];
  for (const bucket of buckets) {
    if (!bucket || symbols.length >= limit) continue;
    bucket.sort(compareWithinBucket);
    symbols.push(...bucket.slice(0, limit - symbols.length));
  }
  const textMatches = textHits.sort((a, b) => a.match - b.match || compareWithinBucket(a, b)).slice(0, limit);
  return { symbols, total, textMatches, textTotal: textHits.length, counts };
}

function compareWithinBucket(a: IndexHit, b: IndexHit): number {
  return (
    a.depth - b.depth ||
    a.symbol.name.length - b.symbol.name.length ||
    compareText(a.symbol.name, b.symbol.name) ||
    compareText(a.workspace, b.workspace) ||
    compareText(a.file, b.file) ||
    a.symbol.line - b.symbol.line ||
    a.symbol.column - b.symbol.column
  );
}

/** Code-unit order: the same on every gateway whatever its locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
