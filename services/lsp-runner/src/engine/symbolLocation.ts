// Finding one symbol of a file's outline by its path: "name", or container names and the name
// joined by "." ("PoliteGreeter.greet"), matched against the innermost symbols (a path may leave
// out outer containers). Pure: the outline comes from the server's document symbols.
import { type SymbolKind, symbolKindName } from "@lspmesh/proto";
import { RunnerError } from "../errors.js";
import type { DocumentSymbol } from "./answers.js";

/** Candidates and top-level names listed in an error, at most (default 20). */
const MAX_LISTED = 20;

/** A symbol with the names from the outermost container down to its own. */
export interface OutlineEntry {
  names: readonly string[];
  symbol: DocumentSymbol;
}

/** Every symbol of a tree, depth first in source order, with its names. */
export function outlineEntries(symbols: readonly DocumentSymbol[], outer: readonly string[] = []): OutlineEntry[] {
  return symbols.flatMap((symbol) => {
    const names = [...outer, ...qualifiedParts(symbol.name)];
    return [{ names, symbol }, ...outlineEntries(symbol.children, names)];
  });
}

/**
 * A name's parts at each `::` outside template arguments: clangd names a method defined out of its
 * class qualified (`locale_ref::get`, `formatter<std::nullptr_t, Char>::format`), so it is found
 * as `get` and `locale_ref.get` like one defined inside. Other names are one part.
 */
export function qualifiedParts(name: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < name.length; i++) {
    const char = name[i];
    if (char === "<") depth++;
    else if (char === ">") depth = Math.max(0, depth - 1);
    else if (char === ":" && name[i + 1] === ":" && depth === 0) {
      parts.push(name.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  parts.push(name.slice(start));
  return parts.some((part) => part === "") ? [name] : parts;
}

/**
 * gopls names a method by its receiver's type and its own name, `(*Mux).Use` or `(Tree[K]).Len`
 * (a top-level symbol, not a child of the type): group 1 is the type, group 2 the method.
 */
const GO_RECEIVER_NAME = /^\(\*?([A-Za-z_]\w*)(?:\[[^\]]*\])?\)\.([A-Za-z_]\w*)$/;

/**
 * Whether the entry's last names, joined by ".", are the path. A gopls method name matches as its
 * type and own name too (`Use`, `Mux.Use`, as find_symbol and the position tools take it), and a
 * path written that way (`(*Mux).Use`) as `Mux.Use`.
 */
export function matchesPath(names: readonly string[], path: string): boolean {
  if (lastNamesAre(names, path)) return true;
  const split = names.flatMap((name) => {
    const receiver = GO_RECEIVER_NAME.exec(name);
    return receiver ? [receiver[1]!, receiver[2]!] : [name];
  });
  if (split.length === names.length) return false;
  return lastNamesAre(split, path.replace(/\(\*?([A-Za-z_]\w*)(?:\[[^\]]*\])?\)\./g, "$1."));
}

function lastNamesAre(names: readonly string[], path: string): boolean {
  for (let first = names.length - 1; first >= 0; first--) {
    if (names.slice(first).join(".") === path) return true;
  }
  return false;
}

/**
 * The one symbol the path names. Several → INVALID_ARGUMENT listing them (path, kind, line);
 * none → NOT_FOUND listing the file's top-level symbols. `stateNote` says why the outline may be
 * incomplete (a server still loading), added to NOT_FOUND.
 */
export function findSymbolByPath(
  entries: readonly OutlineEntry[],
  path: string,
  file: string,
  topLevel: readonly string[],
  stateNote = "",
): OutlineEntry {
  // `locale_ref::get` is the path `locale_ref.get` (outline names are split so).
  const dotted = qualifiedParts(path).join(".");
  const matches = entries.filter((entry) => matchesPath(entry.names, dotted));
  if (matches.length === 1) return matches[0]!;
  // One holding all the others (`exports.parse = function parse() {…}`: the assignment and its
  // named function, nested and alike named): the whole declaration is meant.
  const outer = matches.find((entry) => matches.every((other) => other === entry || holds(entry, other)));
  if (outer) return outer;
  if (matches.length > 1) throw ambiguous(matches, path, file);
  // Each name once: overloads are one name.
  const names = [...new Set(topLevel)];
  const listed = names.slice(0, MAX_LISTED).join(", ");
  const more = names.length > MAX_LISTED ? `, … (${names.length - MAX_LISTED} more)` : "";
  const name = dotted.split(".").at(-1) ?? dotted;
  const elsewhere = dotted.includes(".") ? entries.filter((entry) => entry.symbol.name === name) : [];
  const hint =
    elsewhere.length > 0
      ? `; '${name}' is declared as ${elsewhere
          .slice(0, MAX_LISTED)
          .map((entry) => entry.names.join("."))
          .join(", ")}`
      : "";
  const known = listed ? `its top-level symbols: ${listed}${more}` : "the language server lists no symbols in it";
  throw new RunnerError(
    "NOT_FOUND",
    `no symbol '${path}' in ${file}${hint}; ${known}${stateNote ? ` (${stateNote})` : ""}; document_symbols shows its outline`,
  );
}

/** Whether `other` lies within `entry` in the outline: below it by name, and within its range. */
function holds(entry: OutlineEntry, other: OutlineEntry): boolean {
  const below =
    other.names.length > entry.names.length && entry.names.every((name, index) => other.names[index] === name);
  const { start, end } = entry.symbol.range;
  const inner = other.symbol.range;
  const before = (a: typeof start, b: typeof start) => a.line < b.line || (a.line === b.line && a.column <= b.column);
  return below && before(start, inner.start) && before(inner.end, end);
}

function ambiguous(matches: readonly OutlineEntry[], path: string, file: string): RunnerError {
  const describe = (entry: OutlineEntry) =>
    `${entry.names.join(".")} (${symbolKindName(entry.symbol.kind as SymbolKind)}, line ${entry.symbol.selectionRange.start.line})`;
  const listed = matches.slice(0, MAX_LISTED).map(describe).join(", ");
  const more = matches.length > MAX_LISTED ? `, … (${matches.length - MAX_LISTED} more)` : "";
  const paths = new Set(matches.map((entry) => entry.names.join(".")));
  const fix =
    paths.size === matches.length
      ? `name it with its container, e.g. '${matches[0]!.names.join(".")}'`
      : "some share their whole path, so a name cannot tell them apart: edit by position (apply_workspace_edit)";
  return new RunnerError(
    "INVALID_ARGUMENT",
    `'${path}' names ${matches.length} symbols in ${file}: ${listed}${more}; ${fix}`,
  );
}
