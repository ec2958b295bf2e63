// Finds an identifier by name on a hinted line or the nearest lines around it (a symbol position with a line hint).
import { RunnerError } from "../../errors.js";
import { codePointLength, type Position } from "../session/positionEncoding.js";
import { shownLineCount } from "./textDocument.js";

export interface SymbolQuery {
  name: string;
  /** 1-based; 0 or undefined searches from the top of the file. */
  lineHint?: number;
  /** 1-based among matches on the resolved line; 0 or undefined = first. */
  occurrence?: number;
  /** A column the caller also gave (1-based code points): used when the symbol stands there on lineHint. */
  columnHint?: number;
}

/** How far from the hinted line to look, in lines, before giving up. */
export const SYMBOL_SEARCH_RADIUS = 50;

const IDENTIFIER_CHAR = /[\p{L}\p{N}_$\p{Mn}\p{Mc}\p{Pc}]/u;

/** Code-point columns (1-based) where `name` stands on word boundaries in `lineText`. */
export function findOnLine(lineText: string, name: string): number[] {
  const columns: number[] = [];
  let from = 0;
  for (;;) {
    const index = lineText.indexOf(name, from);
    if (index < 0) return columns;
    const before = lineText.slice(0, index);
    const prev = [...before].at(-1);
    const next = [...lineText.slice(index + name.length)][0];
    const startsWord = !IDENTIFIER_CHAR.test(name[0] ?? "") || prev === undefined || !IDENTIFIER_CHAR.test(prev);
    const endsWord = !IDENTIFIER_CHAR.test(name.at(-1) ?? "") || next === undefined || !IDENTIFIER_CHAR.test(next);
    if (startsWord && endsWord) columns.push(codePointLength(before) + 1);
    from = index + name.length;
  }
}

/**
 * The first of `columns` (1-based code points) not inside a quoted string of `lineText` ("…",
 * '…', `…`, backslash escapes); undefined when every one is. A line-level guess: a string left
 * open carries to the line's end.
 */
export function outsideStrings(lineText: string, columns: readonly number[]): number | undefined {
  const quoted = new Set<number>();
  let quote: string | undefined;
  let column = 0;
  let escaped = false;
  for (const char of lineText) {
    column++;
    if (quote === undefined) {
      if (char === '"' || char === "'" || char === "`") quote = char;
      continue;
    }
    quoted.add(column);
    if (escaped) escaped = false;
    else if (char === "\\") escaped = true;
    else if (char === quote) quote = undefined;
  }
  return columns.find((start) => !quoted.has(start));
}

/**
 * A line that is only a comment in the common syntaxes: `//`, `/*`, a block comment's `*` line,
 * `# ` (Python, shell; not C's `#define`).
 */
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*(\s|\/|$)|#(\s|!|$))/;

/** A triple quote: Python's docstrings and long strings (also Java's, Kotlin's and Swift's text blocks). */
const TRIPLE_QUOTE = /"""|'''/g;
/** A line that starts with a triple-quoted string (a docstring's first line), string prefixes allowed. */
const OPENS_TRIPLE_QUOTED = /^\s*[rRbBuUfF]{0,2}("""|''')/;

/**
 * 1-based lines that are prose inside triple quotes: those starting with one (a docstring's first
 * line) and those that begin inside one. Python's docstrings stand below the declaration they
 * document (`class Text:` then `"""Text with color / style.`), so a line hint just under a
 * declaration would otherwise find its name there first.
 */
export function tripleQuotedLines(lines: readonly string[]): Set<number> {
  const prose = new Set<number>();
  let open: string | undefined;
  lines.forEach((text, index) => {
    if (open !== undefined || OPENS_TRIPLE_QUOTED.test(text)) prose.add(index + 1);
    if (!text.includes('"""') && !text.includes("'''")) return;
    for (const [quote] of text.matchAll(TRIPLE_QUOTE)) {
      if (open === undefined) open = quote;
      else if (quote === open) open = undefined;
    }
  });
  return prose;
}

/**
 * Lines to try, nearest first: hint, hint+1, hint-1, hint+2, … (1-based, within the file), or every
 * line from the top without a hint. Comment lines, and prose in triple quotes (docstrings), come
 * after the others (except the hinted line itself): a name must not resolve to its mention in a doc
 * comment above the declaration (lodash's `* _.chunk(…)` examples above `function chunk`, Go's
 * `// CheckErr prints …` above `func CheckErr`) or in a docstring below it, where servers find no
 * identifier.
 */
function candidateLines(lines: readonly string[], hint: number | undefined): number[] {
  const prose = tripleQuotedLines(lines);
  const isComment = (line: number) => prose.has(line) || COMMENT_LINE.test(lines[line - 1] ?? "");
  const codeFirst = (candidates: number[]) => [
    ...candidates.filter((line) => !isComment(line)),
    ...candidates.filter(isComment),
  ];
  if (!hint) return codeFirst(Array.from({ length: lines.length }, (_, i) => i + 1));
  const around: number[] = [];
  for (let d = 1; d <= SYMBOL_SEARCH_RADIUS; d++) around.push(hint + d, hint - d);
  return [hint, ...codeFirst(around.filter((line) => line >= 1 && line <= lines.length))];
}

export function locateSymbol(lines: readonly string[], query: SymbolQuery, file: string): Position {
  const name = query.name.trim();
  if (name === "" || /\s/.test(name)) {
    throw new RunnerError("INVALID_ARGUMENT", "'symbol' must be one identifier, without spaces");
  }
  if (query.lineHint && query.lineHint > lines.length) {
    throw new RunnerError(
      "INVALID_ARGUMENT",
      `line ${query.lineHint} is past the end of ${file} (${shownLineCount(lines)} lines)`,
    );
  }
  if (query.lineHint && query.columnHint) {
    const length = codePointLength(name);
    const hinted = query.columnHint;
    const here = findOnLine(lines[query.lineHint - 1] ?? "", name).some(
      (start) => start <= hinted && hinted < start + length,
    );
    if (here) return { line: query.lineHint, column: hinted };
  }
  const occurrence = query.occurrence || 1;
  for (const line of candidateLines(lines, query.lineHint)) {
    const columns = findOnLine(lines[line - 1] ?? "", name);
    if (columns.length === 0) continue;
    // No occurrence asked: the first in code, not in a string (`t.Errorf("got %q", got)`).
    const column = query.occurrence
      ? columns[occurrence - 1]
      : (outsideStrings(lines[line - 1] ?? "", columns) ?? columns[0]);
    if (column === undefined) {
      throw new RunnerError(
        "SYMBOL_NOT_FOUND",
        `'${name}' occurs ${columns.length} time(s) on line ${line} of ${file}, not ${occurrence}; lower 'occurrence'`,
      );
    }
    return { line, column };
  }
  const where = query.lineHint ? `within ${SYMBOL_SEARCH_RADIUS} lines of line ${query.lineHint}` : "anywhere";
  throw new RunnerError(
    "SYMBOL_NOT_FOUND",
    `'${name}' was not found ${where} in ${file}; check the spelling or give 'line' and 'column'`,
  );
}
