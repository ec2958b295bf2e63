// Declarations from a language server's textDocument/documentSymbol (as the engine converted them
// to lspmesh positions), flattened with their containers. Whether a top-level declaration is
// exported follows each language's convention, since documentSymbol does not say.
import type { IndexedSymbol } from "@lspmesh/events";
import { type SymbolKind, symbolKindName } from "@lspmesh/proto";
import type { DocumentSymbol } from "../engine/answers.js";
import { snippetLine } from "./snippets.js";

export function serverSymbols(
  language: string,
  symbols: readonly DocumentSymbol[],
  lines: readonly string[],
): IndexedSymbol[] {
  const out: IndexedSymbol[] = [];
  const visit = (symbol: DocumentSymbol, container: string | undefined) => {
    const at = symbol.selectionRange;
    out.push({
      name: symbol.name,
      kind: symbolKindName(symbol.kind as SymbolKind),
      ...(container ? { container } : {}),
      line: at.start.line,
      column: at.start.column,
      endLine: at.end.line,
      endColumn: at.end.column,
      exported: container === undefined && exportedByConvention(language, symbol.name, lines[at.start.line - 1] ?? ""),
      snippet: snippetLine(lines, at.start.line),
    });
    for (const child of symbol.children) visit(child, symbol.name);
  };
  for (const symbol of symbols) visit(symbol, undefined);
  return out;
}

/** Python: no leading underscore; Go: a capital first letter; Rust: `pub`; C, C++ and others: not `static`. */
export function exportedByConvention(language: string, name: string, line: string): boolean {
  switch (language) {
    case "python":
      return !name.startsWith("_");
    case "go":
      return /^\p{Lu}/u.test(name);
    case "rust":
      return /^\s*pub\b/.test(line);
    default:
      return !/^\s*static\b/.test(line);
  }
}
