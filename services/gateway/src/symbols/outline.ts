// Questions about a file's outline (the runner's document symbols, 1-based lines and code-point
// columns, ends exclusive): which symbol is declared at a name position (its full range, for a
// body), and which symbol encloses a position (the container of a reference).
import { type DocumentSymbol, symbolKindName } from "@lspmesh/proto";

/** A 1-based line and code-point column. */
export interface Point {
  line: number;
  column: number;
}

/** A document symbol with the names of the symbols around it, outermost first. */
export interface OutlineSymbol {
  symbol: DocumentSymbol;
  /** E.g. Greeter.greet for a method greet of class Greeter. */
  path: string;
  kind: string;
}

/**
 * The symbol whose name starts at `at` (a declaration's position from the symbol index); else the
 * innermost symbol called `name` whose range holds `at` (servers disagree on the exact name span);
 * else one called `name` whose range starts later on that line (a function assigned to a property).
 */
export function declaredAt(symbols: readonly DocumentSymbol[], at: Point, name: string): OutlineSymbol | undefined {
  let holding: OutlineSymbol | undefined;
  let found: OutlineSymbol | undefined;
  // A function assigned to a property (`Signal.prototype.subscribe = function …`) is named before
  // its range, which starts at the function, on the same line.
  let assigned: OutlineSymbol | undefined;
  walk(symbols, [], (symbol, path) => {
    if (found) return false;
    const start = symbol.selectionRange?.start ?? symbol.range?.start;
    if (start && start.line === at.line && start.column === at.column) {
      found = outlineSymbol(symbol, path);
      return false;
    }
    const rangeStart = symbol.range?.start;
    if (symbol.name === name && rangeStart?.line === at.line && rangeStart.column > at.column)
      assigned ??= outlineSymbol(symbol, path);
    if (!contains(symbol.range, at)) return false;
    if (symbol.name === name) holding = outlineSymbol(symbol, path);
    return true;
  });
  return found ?? holding ?? assigned;
}

/**
 * The innermost symbol whose range holds `at`, the symbol's own name excluded (a reference at a
 * declaration's name belongs to what encloses the declaration); undefined at the top level.
 */
export function enclosingSymbol(symbols: readonly DocumentSymbol[], at: Point): OutlineSymbol | undefined {
  let innermost: OutlineSymbol | undefined;
  walk(symbols, [], (symbol, path) => {
    if (!contains(symbol.range, at)) return false;
    // On a symbol's own name it is not inside it; an unnamed callback's "name" is its whole range.
    const onName = contains(symbol.selectionRange, at) && !sameRange(symbol.selectionRange, symbol.range);
    if (!onName) innermost = outlineSymbol(symbol, path);
    return true;
  });
  return innermost;
}

export function sameRange(
  a: { start?: Point | undefined; end?: Point | undefined } | undefined,
  b: { start?: Point | undefined; end?: Point | undefined } | undefined,
): boolean {
  return (
    a?.start?.line === b?.start?.line &&
    a?.start?.column === b?.start?.column &&
    a?.end?.line === b?.end?.line &&
    a?.end?.column === b?.end?.column
  );
}

/** Visits symbols depth first; `enter` says whether to go into the children. */
function walk(
  symbols: readonly DocumentSymbol[],
  path: readonly string[],
  enter: (symbol: DocumentSymbol, path: readonly string[]) => boolean,
): void {
  for (const symbol of symbols) {
    if (enter(symbol, path)) walk(symbol.children, [...path, symbol.name], enter);
  }
}

function outlineSymbol(symbol: DocumentSymbol, path: readonly string[]): OutlineSymbol {
  return { symbol, path: [...path, symbol.name].join("."), kind: symbolKindName(symbol.kind) };
}

/** `at` lies in range: from its start (inclusive) to its end (exclusive); an empty range holds its start. */
export function contains(
  range: { start?: Point | undefined; end?: Point | undefined } | undefined,
  at: Point,
): boolean {
  if (!range?.start || !range.end) return false;
  const { start, end } = range;
  if (before(at, start)) return false;
  if (start.line === end.line && start.column === end.column)
    return at.line === start.line && at.column === start.column;
  return before(at, end);
}

function before(a: Point, b: Point): boolean {
  return a.line < b.line || (a.line === b.line && a.column < b.column);
}
