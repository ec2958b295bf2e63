// Searches loaded symbol indexes: every declaration of the given workspaces is matched (symbolMatch.ts),
// counted (a true total) and ranked before the limit cuts: match class, exported first, kind
// (types before functions before members before variables), shallower paths, shorter names, then
// name, workspace, file and line. Text matches (source "text") are kept apart, never mixed in.
import type { IndexedSymbol, SymbolIndexSource } from "@lspmesh/events";
import { kindRank } from "@lspmesh/proto";
import { type MatchClass, matchName, matchWord } from "./symbolMatch.js";
import { characterMask, type IndexedFile, type WorkspaceIndexView } from "./tenantIndex.js";

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

/** Matches of one bucket, as references: materialized only when they can make the limit. */
interface Bucket {
  files: IndexedFile[];
  positions: number[];
  matches: MatchClass[];
  workspaces: string[];
}

export function searchIndexes(
  views: ReadonlyArray<{ workspace: string; view: WorkspaceIndexView }>,
  query: string,
  filters: IndexFilters,
  limit: number,
): IndexSearchResult {
  const lowerQuery = query.toLowerCase();
  const queryMask = characterMask(lowerQuery);
  // Matches bucketed by (match class, exported, kind rank); only the buckets the limit reaches are ranked.
  const buckets: Array<Bucket | undefined> = [];
  const textHits: IndexHit[] = [];
  const counts = new Map<string, number>();
  let total = 0;
  for (const { workspace, view } of views) {
    let count = 0;
    for (const file of view.files.values()) {
      const { entry, masks, lower } = file;
      if (filters.languages && !filters.languages.has(entry.language)) continue;
      if (filters.path && !filters.path(entry.file)) continue;
      const text = entry.source === "text";
      if (text && (filters.kinds || filters.exportedOnly)) continue;
      const { symbols } = entry;
      for (let i = 0; i < symbols.length; i++) {
        if ((masks[i]! & queryMask) !== queryMask) continue; // a character of the query is missing
        const symbol = symbols[i]!;
        const match = text
          ? matchWord(symbol.name, lower[i]!, query, lowerQuery)
          : matchName(symbol.name, lower[i]!, query, lowerQuery);
        if (match === -1) continue;
        if (filters.kinds && !filters.kinds.has(symbol.kind)) continue;
        if (filters.exportedOnly && !symbol.exported) continue;
        count++;
        if (text) {
          textHits.push(hitOf(workspace, file, i, match));
          continue;
        }
        total++;
        const key =
          (match * 2 + (symbol.exported ? 0 : 1)) * KIND_RANKS + Math.min(kindRank(symbol.kind), KIND_RANKS - 1);
        let bucket = buckets[key];
        if (!bucket) {
          bucket = { files: [], positions: [], matches: [], workspaces: [] };
          buckets[key] = bucket;
        }
        bucket.files.push(file);
        bucket.positions.push(i);
        bucket.matches.push(match);
        bucket.workspaces.push(workspace);
      }
    }
    counts.set(workspace, count);
  }
  const symbols: IndexHit[] = [];
  for (const bucket of buckets) {
    if (!bucket || symbols.length >= limit) continue;
    symbols.push(...best(bucket, limit - symbols.length));
  }
  const textMatches = textHits.sort((a, b) => a.match - b.match || compareWithinBucket(a, b)).slice(0, limit);
  return { symbols, total, textMatches, textTotal: textHits.length, counts };
}

/** Path depth and name length, the first keys within a bucket, as one small number. */
function shortKey(file: IndexedFile, position: number): number {
  return Math.min(file.depth, 63) * 1024 + Math.min(file.entry.symbols[position]!.name.length, 1023);
}

/**
 * The `needed` best of a bucket, ranked. A large bucket is first narrowed by counting its short
 * keys (path depth, name length): only the matches at or below the key where `needed` is reached
 * are compared in full.
 */
function best(bucket: Bucket, needed: number): IndexHit[] {
  const size = bucket.files.length;
  let threshold = Number.POSITIVE_INFINITY;
  if (size > needed * 2) {
    const histogram = new Map<number, number>();
    for (let j = 0; j < size; j++) {
      const key = shortKey(bucket.files[j]!, bucket.positions[j]!);
      histogram.set(key, (histogram.get(key) ?? 0) + 1);
    }
    let seen = 0;
    for (const key of [...histogram.keys()].sort((a, b) => a - b)) {
      seen += histogram.get(key)!;
      if (seen >= needed) {
        threshold = key;
        break;
      }
    }
  }
  const hits: IndexHit[] = [];
  for (let j = 0; j < size; j++) {
    const file = bucket.files[j]!;
    const position = bucket.positions[j]!;
    if (shortKey(file, position) > threshold) continue;
    hits.push(hitOf(bucket.workspaces[j]!, file, position, bucket.matches[j]!));
  }
  return hits.sort(compareWithinBucket).slice(0, needed);
}

function hitOf(workspace: string, file: IndexedFile, position: number, match: MatchClass): IndexHit {
  const { entry } = file;
  return {
    workspace,
    file: entry.file,
    language: entry.language,
    source: entry.source,
    symbol: entry.symbols[position]!,
    match,
    depth: file.depth,
  };
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
