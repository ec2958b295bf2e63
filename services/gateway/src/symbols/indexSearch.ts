// Searches loaded symbol indexes: every declaration of the given workspaces is matched (symbolMatch.ts),
// counted (a true total) and ranked before the limit cuts: match class, exported first, kind
// (types before functions before members before variables), shallower paths, shorter names, then
// name, workspace, file and line. Text matches (source "text") are kept apart, never mixed in.
import type { IndexedSymbol, SymbolIndexSource } from "@lspmesh/events";
import { kindRank } from "@lspmesh/proto";
import { isSubsequence, MATCH, type MatchClass, matchWord, quickMatch, slowMatch } from "./symbolMatch.js";
import { characterMask, flatIndexOf, type IndexedFile, type WorkspaceIndexView } from "./tenantIndex.js";

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
  /**
   * Per workspace, the languages of files indexed as words that have a word the query matches as a
   * language server would (its characters in order, as workspace/symbol matches): declarations
   * there are unknown, whether or not the word is shown as a text match.
   */
  textLanguages: Map<string, Set<string>>;
}

/** Kind ranks used for buckets: 0..KIND_RANKS-1 (kindRank's "unknown" included). */
const KIND_RANKS = 8;

/** Matches of one bucket (one match class), as references: materialized only when they can make the limit. */
interface Bucket {
  match: MatchClass;
  files: IndexedFile[];
  positions: number[];
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
  // Matches that are not exact or prefix: classified (camel-case, substring, fuzzy) only when needed.
  const deferred: Bucket = { match: MATCH.fuzzy, files: [], positions: [] };
  const textHits: IndexHit[] = [];
  const counts = new Map<string, number>();
  const allowed = fileFilter(filters);
  const textLanguages = new Map<string, Set<string>>();
  let total = 0;
  for (const { workspace, view } of views) {
    const flat = flatIndexOf(view);
    const { masks, lower } = flat;
    let count = 0;
    const undecided = new Set<string>();
    for (let i = 0; i < masks.length; i++) {
      if ((masks[i]! & queryMask) !== queryMask) continue; // a character of the query is missing
      const name = lower[i]!;
      if (!isSubsequence(lowerQuery, name)) continue;
      const file = flat.file[i]!;
      if (allowed && !allowed(file)) continue;
      const position = flat.position[i]!;
      const symbol = file.entry.symbols[position]!;
      if (file.entry.source === "text") {
        undecided.add(file.entry.language);
        if (filters.kinds || filters.exportedOnly) continue;
        const match = matchWord(symbol.name, name, query, lowerQuery);
        if (match === -1) continue;
        count++;
        textHits.push(hitOf(file, position, match));
        continue;
      }
      if (filters.kinds && !filters.kinds.has(symbol.kind)) continue;
      if (filters.exportedOnly && !symbol.exported) continue;
      count++;
      total++;
      const quick = quickMatch(symbol.name, name, query, lowerQuery);
      const bucket = quick === undefined ? deferred : bucketFor(buckets, quick, symbol);
      bucket.files.push(file);
      bucket.positions.push(position);
    }
    counts.set(workspace, count);
    if (undecided.size > 0) textLanguages.set(workspace, undecided);
  }
  const symbols: IndexHit[] = [];
  const collect = () => {
    symbols.length = 0;
    for (const bucket of buckets) {
      if (!bucket || symbols.length >= limit) continue;
      symbols.push(...best(bucket, limit - symbols.length));
    }
  };
  collect();
  if (symbols.length < limit && deferred.files.length > 0) {
    for (let j = 0; j < deferred.files.length; j++) {
      const file = deferred.files[j]!;
      const position = deferred.positions[j]!;
      const symbol = file.entry.symbols[position]!;
      const bucket = bucketFor(buckets, slowMatch(symbol.name, file.lower[position]!, lowerQuery), symbol);
      bucket.files.push(file);
      bucket.positions.push(position);
    }
    collect();
  }
  const textMatches = textHits.sort((a, b) => a.match - b.match || compareWithinBucket(a, b)).slice(0, limit);
  return { symbols, total, textMatches, textTotal: textHits.length, counts, textLanguages };
}

/** A per-file test for the language and path filters (undefined when there are none), each file tested once. */
function fileFilter(filters: IndexFilters): ((file: IndexedFile) => boolean) | undefined {
  const { languages, path } = filters;
  if (!languages && !path) return undefined;
  const decided = new Map<IndexedFile, boolean>();
  return (file) => {
    let verdict = decided.get(file);
    if (verdict === undefined) {
      verdict = (!languages || languages.has(file.entry.language)) && (!path || path(file.entry.file));
      decided.set(file, verdict);
    }
    return verdict;
  };
}

function bucketFor(buckets: Array<Bucket | undefined>, match: MatchClass, symbol: IndexedSymbol): Bucket {
  const key = (match * 2 + (symbol.exported ? 0 : 1)) * KIND_RANKS + Math.min(kindRank(symbol.kind), KIND_RANKS - 1);
  let bucket = buckets[key];
  if (!bucket) {
    bucket = { match, files: [], positions: [] };
    buckets[key] = bucket;
  }
  return bucket;
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
    hits.push(hitOf(file, position, bucket.match));
  }
  return hits.sort(compareWithinBucket).slice(0, needed);
}

function hitOf(file: IndexedFile, position: number, match: MatchClass): IndexHit {
  const { entry } = file;
  return {
    workspace: file.workspace,
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
