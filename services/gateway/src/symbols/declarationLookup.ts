// Declarations by name (find_symbol, and positions given by symbol without a file): the symbol
// index's declarations whose name is the one asked for (case-sensitive, then ignoring case) or
// starts with it, never looser matches. A name path `Class.method` (or `ns.Class.method`) matches
// a declaration named `method` whose container is `Class` (and whose container's container is
// `ns`, checked in the same file). Ranked as search_symbols ranks: match class, exported first,
// kind, path depth, shorter names, then name, workspace, file and position.
import type { IndexedSymbol, SymbolIndexSource } from "@lspmesh/events";
import { kindRank } from "@lspmesh/proto";
import { MATCH, type MatchClass, quickMatch } from "./symbolMatch.js";
import { flatIndexOf, type IndexedFile, type WorkspaceIndexView } from "./tenantIndex.js";

/** A name asked for: `name`, or the last part of a name path with its containers (outermost first). */
export interface NameQuery {
  /** The whole text asked for, e.g. Greeter.greet. */
  text: string;
  name: string;
  containers: string[];
}

/**
 * Splits `Class.method` (or C++'s and Rust's `ns::Class::method`) into containers and name; a name
 * with no inner dot or `::` has no containers. A Go receiver as gopls and Go's documentation write
 * it, `(*Mux).Handle` or `(Tree[K]).Len`, is its type: the container the index records for the
 * method (`Mux`, `Tree`).
 */
export function parseNameQuery(text: string): NameQuery {
  const parts = text.split(/::|\./);
  if (parts.length < 2 || parts.some((part) => part === "")) return { text, name: text, containers: [] };
  const containers = parts.slice(0, -1).map((part) => GO_RECEIVER.exec(part)?.[1] ?? part);
  return { text, name: parts.at(-1)!, containers };
}

/** A Go method's receiver in parentheses: `(*Mux)`, `(Mux)`, `(*Tree[K])`; group 1 is the type. */
const GO_RECEIVER = /^\(\*?([A-Za-z_]\w*)(?:\[[^\]]*\])?\)$/;

export interface DeclarationFilters {
  /** Only these kinds (tool-contract names, e.g. class). */
  kinds?: ReadonlySet<string>;
  /** Only files for which this says true (a path or glob). */
  file?: (file: string) => boolean;
}

/** One declaration found, from the index or from a language server asked live. */
export interface Declaration {
  workspace: string;
  file: string;
  language?: string | undefined;
  symbol: IndexedSymbol;
  origin: SymbolIndexSource | "live";
  match: MatchClass;
}

/** Declarations found, by match class (ranked only when a page is taken). */
export class DeclarationMatches {
  private readonly buckets = new Map<MatchClass, Declaration[]>();
  private readonly sorted = new Set<MatchClass>();
  total = 0;

  add(declaration: Declaration): void {
    let bucket = this.buckets.get(declaration.match);
    if (!bucket) {
      bucket = [];
      this.buckets.set(declaration.match, bucket);
    }
    bucket.push(declaration);
    this.sorted.delete(declaration.match);
    this.total++;
  }

  /** How many have exactly the name asked for, in the same case. */
  get exactCase(): number {
    return this.buckets.get(MATCH.exact)?.length ?? 0;
  }

  /** How many have exactly the name asked for (case-sensitive or not), the others starting with it. */
  get exact(): number {
    return (this.buckets.get(MATCH.exact)?.length ?? 0) + (this.buckets.get(MATCH.exactIgnoringCase)?.length ?? 0);
  }

  /** The declarations of one match class, ranked. */
  of(match: MatchClass): readonly Declaration[] {
    const bucket = this.buckets.get(match) ?? [];
    if (!this.sorted.has(match)) {
      bucket.sort(compareDeclarations);
      this.sorted.add(match);
    }
    return bucket;
  }

  /** Ranked declarations from `offset`, at most `limit`; only the classes the page reaches are sorted. */
  page(offset: number, limit: number): Declaration[] {
    const out: Declaration[] = [];
    let skip = offset;
    for (const match of [...this.buckets.keys()].sort((a, b) => a - b)) {
      if (out.length >= limit) break;
      const size = this.buckets.get(match)!.length;
      if (skip >= size) {
        skip -= size;
        continue;
      }
      out.push(...this.of(match).slice(skip, skip + limit - out.length));
      skip = 0;
    }
    return out;
  }
}

/** Scans the indexes of `views` for declarations matching `query` (text entries, which are no declarations, left out). */
export function findIndexedDeclarations(
  views: ReadonlyArray<{ workspace: string; view: WorkspaceIndexView }>,
  query: NameQuery,
  filters: DeclarationFilters,
  into = new DeclarationMatches(),
): DeclarationMatches {
  const matcher = nameMatcher(query);
  const allowed = new Map<IndexedFile, boolean>();
  for (const { workspace, view } of views) {
    const flat = flatIndexOf(view);
    for (let i = 0; i < flat.lower.length; i++) {
      if (!matcher.mayMatch(flat.lower[i]!)) continue;
      const file = flat.file[i]!;
      let passes = allowed.get(file);
      if (passes === undefined) {
        passes = file.entry.source !== "text" && (!filters.file || filters.file(file.entry.file));
        allowed.set(file, passes);
      }
      if (!passes) continue;
      const symbol = file.entry.symbols[flat.position[i]!]!;
      if (filters.kinds && !filters.kinds.has(symbol.kind)) continue;
      const match = matcher.match(symbol, flat.lower[i]!, file.entry.symbols);
      if (match === undefined) continue;
      into.add({
        workspace,
        file: file.entry.file,
        language: file.entry.language,
        symbol,
        origin: file.entry.source,
        match,
      });
    }
  }
  return into;
}

/** What text indexing records: ASCII identifiers of at least 3 characters (the runner's textSymbols). */
const TEXT_WORD = /^[A-Za-z_][A-Za-z0-9_]{2,}$/;

/**
 * The languages of each workspace whose files the index holds only as text matches (their server
 * was not running when they were indexed) and that may declare `name`: a text file of that language
 * has the word (ignoring case), left words out over its cap, or the word is not one text indexing
 * records. Their declarations are unknown to the index, so a miss there is no answer.
 */
export function undecidedTextLanguages(
  views: ReadonlyArray<{ workspace: string; view: WorkspaceIndexView }>,
  name: string,
): Array<{ workspace: string; language: string }> {
  const lowerName = name.toLowerCase();
  const recordable = TEXT_WORD.test(name);
  const out: Array<{ workspace: string; language: string }> = [];
  for (const { workspace, view } of views) {
    const undecided = new Set<string>();
    for (const file of view.files.values()) {
      const { entry } = file;
      if (entry.source !== "text" || undecided.has(entry.language)) continue;
      if (!recordable || (entry.omitted ?? 0) > 0 || file.lower.includes(lowerName)) undecided.add(entry.language);
    }
    for (const language of undecided) out.push({ workspace, language });
  }
  return out;
}

/**
 * A declaration a language server answered live, added when it matches (its container is the only
 * one known). clangd names the container qualified (`fmt::detail::buffer`): its last part is the
 * container, and the name path's outer containers must end the rest.
 */
export function addLiveDeclaration(
  into: DeclarationMatches,
  query: NameQuery,
  filters: DeclarationFilters,
  found: Omit<Declaration, "match" | "origin">,
): void {
  const { symbol } = found;
  if (filters.kinds && !filters.kinds.has(symbol.kind)) return;
  if (filters.file && !filters.file(found.file)) return;
  const qualified = symbol.container?.includes("::") ? symbol.container.split("::") : undefined;
  if (qualified && !endsWithIgnoringCase(qualified, query.containers)) return;
  const matcher = nameMatcher({ ...query, containers: query.containers.slice(-1) });
  const lower = symbol.name.toLowerCase();
  if (!matcher.mayMatch(lower)) return;
  const match = matcher.match(qualified ? { ...symbol, container: qualified.at(-1)! } : symbol, lower, []);
  if (match !== undefined) into.add({ ...found, origin: "live", match });
}

/** `parts` ends with `tail` (ignoring case); an empty tail always. */
function endsWithIgnoringCase(parts: readonly string[], tail: readonly string[]): boolean {
  if (tail.length > parts.length) return false;
  const offset = parts.length - tail.length;
  return tail.every((part, i) => part.toLowerCase() === parts[offset + i]!.toLowerCase());
}

/** The class a match falls to when only ignoring case holds. */
const IGNORING_CASE: Partial<Record<MatchClass, MatchClass>> = {
  [MATCH.exact]: MATCH.exactIgnoringCase,
  [MATCH.prefix]: MATCH.prefixIgnoringCase,
};

interface NameMatcher {
  /** Cheap test on the lower-case name: false means it cannot match. */
  mayMatch(lower: string): boolean;
  /** The match class, or undefined when it does not match; `fileSymbols` are its file's declarations (for outer containers). */
  match(symbol: IndexedSymbol, lower: string, fileSymbols: readonly IndexedSymbol[]): MatchClass | undefined;
}

function nameMatcher(query: NameQuery): NameMatcher {
  const whole = query.text;
  const lowerWhole = whole.toLowerCase();
  const { name, containers } = query;
  const lowerName = name.toLowerCase();
  const byWhole = (symbol: IndexedSymbol, lower: string) => quickMatch(symbol.name, lower, whole, lowerWhole);
  if (containers.length === 0) {
    return { mayMatch: (lower) => lower.startsWith(lowerWhole), match: byWhole };
  }
  const inner = containers.at(-1)!;
  return {
    // A name with dots of its own matches as a whole too, but only whole (`exports.handler`): a
    // prefix would take tsserver's callbacks (`route.dispatch() callback`) for `Route.dispatch`.
    mayMatch: (lower) => lower.startsWith(lowerName) || lower.startsWith(lowerWhole),
    match(symbol, lower, fileSymbols) {
      const whole = byWhole(symbol, lower);
      const asWhole = whole !== undefined && whole <= MATCH.exactIgnoringCase ? whole : undefined;
      const container = symbol.container;
      if (container === undefined || container.toLowerCase() !== inner.toLowerCase()) return asWhole;
      if (!outerContainersHold(containers, fileSymbols)) return asWhole;
      let match = quickMatch(symbol.name, lower, name, lowerName);
      if (match === undefined) return asWhole;
      // A container matching only when ignoring case makes the whole match one ignoring case.
      if (container !== inner) match = IGNORING_CASE[match] ?? match;
      return asWhole === undefined ? match : (Math.min(asWhole, match) as MatchClass);
    },
  };
}

/** `ns.Class.method`: the file declares Class inside ns (each outer pair, ignoring case). */
function outerContainersHold(containers: readonly string[], fileSymbols: readonly IndexedSymbol[]): boolean {
  for (let i = containers.length - 1; i > 0; i--) {
    const name = containers[i]!.toLowerCase();
    const outer = containers[i - 1]!.toLowerCase();
    const held = fileSymbols.some(
      (symbol) => symbol.name.toLowerCase() === name && symbol.container?.toLowerCase() === outer,
    );
    if (!held) return false;
  }
  return true;
}

export function compareDeclarations(a: Declaration, b: Declaration): number {
  const x = a.symbol;
  const y = b.symbol;
  return (
    a.match - b.match ||
    Number(y.exported) - Number(x.exported) ||
    kindRank(x.kind) - kindRank(y.kind) ||
    depthOf(a.file) - depthOf(b.file) ||
    x.name.length - y.name.length ||
    compareText(x.name, y.name) ||
    compareText(a.workspace, b.workspace) ||
    compareText(a.file, b.file) ||
    x.line - y.line ||
    x.column - y.column
  );
}

function depthOf(file: string): number {
  let depth = 0;
  for (let i = file.indexOf("/"); i >= 0; i = file.indexOf("/", i + 1)) depth++;
  return depth;
}

/** Code-unit order: the same on every gateway whatever its locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// One declaration for a name (positions given by symbol without a file)

export type NameResolution =
  /** One declaration; `passedOver` are those of the same name a less specific kind left out. */
  | { outcome: "unique"; declaration: Declaration; passedOver: Declaration[] }
  /** Several: the caller must choose (ranked, kind-preferred first). */
  | { outcome: "ambiguous"; candidates: readonly Declaration[] }
  /** None of that name; `similar` are declarations whose name starts with it. */
  | { outcome: "none"; similar: Declaration[] };

/**
 * The declaration a name stands for: exact-case matches if any, else matches ignoring case; then
 * the best kind (types, then functions, then methods, …: kindRank) when that leaves one place.
 * Several entries of one place (TypeScript overloads, merged declarations: same file, container,
 * name and kind) count as one, its first line.
 */
export function resolveName(matches: DeclarationMatches, similarLimit = 5): NameResolution {
  const exact = matches.of(MATCH.exact);
  const tier = exact.length > 0 ? exact : matches.of(MATCH.exactIgnoringCase);
  if (tier.length === 0) {
    return { outcome: "none", similar: matches.page(0, similarLimit) };
  }
  if (samePlace(tier)) return { outcome: "unique", declaration: firstLine(tier), passedOver: [] };
  const best = Math.min(...tier.map((declaration) => kindRank(declaration.symbol.kind)));
  const preferred = tier.filter((declaration) => kindRank(declaration.symbol.kind) === best);
  if (samePlace(preferred)) {
    const declaration = firstLine(preferred);
    return { outcome: "unique", declaration, passedOver: tier.filter((other) => !preferred.includes(other)) };
  }
  const definition = oneCFunction(preferred);
  if (definition) return { outcome: "unique", declaration: definition, passedOver: [] };
  const candidates = [...preferred, ...tier.filter((other) => !preferred.includes(other))];
  return { outcome: "ambiguous", candidates };
}

function samePlace(declarations: readonly Declaration[]): boolean {
  const first = declarations[0]!;
  return declarations.every(
    (other) =>
      other.workspace === first.workspace &&
      other.file === first.file &&
      other.symbol.name === first.symbol.name &&
      other.symbol.kind === first.symbol.kind &&
      other.symbol.container === first.symbol.container,
  );
}

const C_HEADER = /\.(?:h|hh|hpp|hxx|h\+\+|inl)$/i;

/**
 * One C/C++ function declared by its prototypes (in headers) and defined once: every answer
 * about it is the same whichever is asked, so the definition is taken, not listed as a choice.
 */
function oneCFunction(declarations: readonly Declaration[]): Declaration | undefined {
  const first = declarations[0]!;
  const same = declarations.every(
    (other) =>
      other.language === "cpp" &&
      other.workspace === first.workspace &&
      other.symbol.name === first.symbol.name &&
      other.symbol.kind === "function" &&
      other.symbol.container === first.symbol.container,
  );
  if (!same) return undefined;
  const definitions = declarations.filter((declaration) => !C_HEADER.test(declaration.file));
  return definitions.length === 1 ? definitions[0] : undefined;
}

function firstLine(declarations: readonly Declaration[]): Declaration {
  return declarations.reduce((a, b) => (b.symbol.line < a.symbol.line ? b : a));
}
