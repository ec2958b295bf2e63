// The text fallback for files of a language with no index source (its server not installed):
// identifiers found at word boundaries, each with its first occurrence. Labelled source "text",
// kind "text": searches list them apart from declarations, never mixed in.
import type { IndexedSymbol } from "@lspmesh/events";
import { codePointLength } from "../lsp/session/positionEncoding.js";
import { snippetLine } from "./snippets.js";

/** Words shorter than this are not indexed (default 3: `i`, `x`, `id` match everything). */
const MIN_WORD_LENGTH = 3;

/** Distinct identifiers of `lines`, at most `limit`, each at its first occurrence. */
export function textSymbols(lines: readonly string[], limit: number): { symbols: IndexedSymbol[]; omitted: number } {
  const seen = new Set<string>();
  const symbols: IndexedSymbol[] = [];
  let omitted = 0;
  for (const [index, text] of lines.entries()) {
    for (const match of text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
      const word = match[0];
      if (word.length < MIN_WORD_LENGTH || seen.has(word)) continue;
      seen.add(word);
      if (symbols.length >= limit) {
        omitted++;
        continue;
      }
      const column = codePointLength(text.slice(0, match.index)) + 1;
      symbols.push({
        name: word,
        kind: "text",
        line: index + 1,
        column,
        endLine: index + 1,
        endColumn: column + word.length,
        exported: false,
        snippet: snippetLine(lines, index + 1),
      });
    }
  }
  return { symbols, omitted };
}
