// The order symbol matches are ranked in (workspace_symbols, search_symbols), the same in the
// runner (ranked before a limit cuts) and the gateway (merging runners and workspaces): exact name
// > prefix > substring > fuzzy, case-sensitive before case-insensitive at each step; then by kind
// (types before functions before members before variables); then shorter names, then name,
// workspace, file, position. Kind names are the tool contract's: SymbolKind in lower case.
import { SymbolKind } from "./gen/lspmesh/v1/runner_pb.js";

/** The tool-contract name of a symbol kind: "class", "enum_member", … ("symbol" when unknown). */
export function symbolKindName(kind: SymbolKind): string {
  if (kind === SymbolKind.UNSPECIFIED) return "symbol";
  return (SymbolKind[kind] ?? "symbol").toLowerCase();
}

export interface RankedSymbol {
  name: string;
  kind: string;
  /** Cross-workspace search only. */
  workspace?: string;
  location: { file: string; line: number; column: number };
}

/**
 * 0 = exact … 6 = no visible match (servers match more loosely than we can see). A name qualified
 * by its receiver or container (gopls: `Command.ExecuteC`) matches as well as its own last part.
 */
export function matchClass(name: string, query: string): number {
  const dot = name.lastIndexOf(".");
  const own = dot > 0 && !query.includes(".") ? plainMatchClass(name.slice(dot + 1), query) : 6;
  return Math.min(own, plainMatchClass(name, query));
}

function plainMatchClass(name: string, query: string): number {
  if (name === query) return 0;
  const lowerName = name.toLowerCase();
  const lowerQuery = query.toLowerCase();
  if (lowerName === lowerQuery) return 1;
  if (name.startsWith(query)) return 2;
  if (lowerName.startsWith(lowerQuery)) return 3;
  if (lowerName.includes(lowerQuery)) return 4;
  return isSubsequence(lowerQuery, lowerName) ? 5 : 6;
}

function isSubsequence(needle: string, haystack: string): boolean {
  let at = 0;
  for (const char of haystack) {
    if (char === needle[at]) at++;
    if (at === needle.length) return true;
  }
  return needle.length === 0;
}

const KIND_ORDER = [
  ["class", "interface", "struct", "enum", "type_parameter"],
  ["function", "constructor"],
  ["method"],
  ["module", "namespace", "package"],
  ["property", "field", "enum_member", "event", "operator"],
  ["constant", "variable"],
];

export function kindRank(kind: string): number {
  const index = KIND_ORDER.findIndex((group) => group.includes(kind));
  return index < 0 ? KIND_ORDER.length : index;
}

export function compareSymbols(query: string): (a: RankedSymbol, b: RankedSymbol) => number {
  return (a, b) =>
    matchClass(a.name, query) - matchClass(b.name, query) ||
    kindRank(a.kind) - kindRank(b.kind) ||
    a.name.length - b.name.length ||
    a.name.localeCompare(b.name) ||
    (a.workspace ?? "").localeCompare(b.workspace ?? "") ||
    a.location.file.localeCompare(b.location.file) ||
    a.location.line - b.location.line ||
    a.location.column - b.location.column;
}

export function rankSymbols<T extends RankedSymbol>(symbols: readonly T[], query: string): T[] {
  return [...symbols].sort(compareSymbols(query));
}
