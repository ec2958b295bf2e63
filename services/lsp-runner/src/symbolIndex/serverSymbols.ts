// Declarations from a language server's textDocument/documentSymbol (as the engine converted them
// to lspmesh positions), flattened with their containers. Whether a top-level declaration is
// exported follows each language's convention, since documentSymbol does not say. A method that
// the server names with its receiver (gopls: `(*Command).Execute`) is kept under its own name with
// the type as its container, as search by name expects.
import { type IndexedSymbol, memberOfQualifiedName } from "@lspmesh/events";
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
    const kind = symbolKindName(symbol.kind as SymbolKind);
    const member = container === undefined ? memberOfQualifiedName(language, symbol.name, kind) : undefined;
    const name = member?.name ?? symbol.name;
    const inside = member?.container ?? container;
    out.push({
      name,
      kind,
      ...(inside ? { container: inside } : {}),
      line: at.start.line,
      column: at.start.column,
      endLine: at.end.line,
      endColumn: at.end.column,
      // Top level (a receiver's method too: Go exports it by its own name).
      exported: container === undefined && exportedByConvention(language, name, lines[at.start.line - 1] ?? ""),
      snippet: snippetLine(lines, at.start.line),
    });
    for (const child of symbol.children) visit(child, name);
  };
  for (const symbol of symbols) visit(symbol, undefined);
  if (language === "cpp")
    out.push(...macroDefinitions(lines, new Set(out.map((symbol) => `${symbol.line}:${symbol.name}`))));
  return out;
}

const MACRO_DEFINITION = /^(\s*#\s*define\s+)([A-Za-z_]\w*)/;

/**
 * `#define` macros, which clangd leaves out of documentSymbol but finds by workspace/symbol (as kind
 * string, the kind it gives them there): without them a search for REDIS_OK said "none".
 */
function macroDefinitions(lines: readonly string[], known: ReadonlySet<string>): IndexedSymbol[] {
  const found: IndexedSymbol[] = [];
  for (const [index, text] of lines.entries()) {
    const match = MACRO_DEFINITION.exec(text);
    if (!match || known.has(`${index + 1}:${match[2]}`)) continue;
    const column = [...match[1]!].length + 1;
    found.push({
      name: match[2]!,
      kind: symbolKindName(15 as SymbolKind),
      line: index + 1,
      column,
      endLine: index + 1,
      endColumn: column + match[2]!.length,
      exported: true,
      snippet: snippetLine(lines, index + 1),
    });
  }
  return found;
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
