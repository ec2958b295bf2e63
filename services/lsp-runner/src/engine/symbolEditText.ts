// The text edit of a symbol edit, from the symbol's range as the server gives it (leading doc
// comments are part of it only when the server says so). Pure.
//
// - replace: the range is replaced by the text. When the text's first line is indented and only
//   indentation precedes the symbol on its line, the replacement starts at column 1 (the text
//   carries its own indentation); otherwise the symbol's indentation is kept before the text. When
//   words precede the symbol on its line (`type ` before a Go type's name) and the text starts with
//   them, they are replaced too.
// - insertBefore: the text goes at column 1 of the symbol's first line, a line break added when it
//   does not end with one (no indentation is added).
// - insertAfter: the text goes after the end of the symbol's last line, on a line of its own (a
//   line break before it; one line break at its end is dropped, the line's own break follows).
// Line breaks in the text are written as the file's own (its first one; "\n" when it has none).
import { codePointLength } from "../lsp/session/positionEncoding.js";
import type { Range, TextEdit } from "./answers.js";

export type SymbolEditMode = "replace" | "insertBefore" | "insertAfter";

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Whether the server gave a declaration only its name as range while the declaration goes on past
 * it (`=` or `:` follows the name): pyright's range of `SPINNERS = {` … 460 lines … `}` and of
 * `RenderResult = Iterable[…]` is the name alone. Replacing that range with a whole declaration
 * leaves the old value after it (`RenderResult = Iterable[Any] = Iterable[…]`), and inserting
 * after it writes inside the value; a TypeScript enum member without initializer (`A,`) is whole.
 */
export function nameOnlyDeclaration(
  lines: readonly string[],
  symbol: { range: Range; selectionRange: Range },
): boolean {
  const { range, selectionRange } = symbol;
  const same = (a: Range["start"], b: Range["start"]) => a.line === b.line && a.column === b.column;
  if (!same(range.start, selectionRange.start) || !same(range.end, selectionRange.end)) return false;
  const after = [...(lines[range.end.line - 1] ?? "")].slice(range.end.column - 1).join("");
  return /^\s*(=(?!=)|:(?!=))/.test(after);
}

/** The file's own line break: its first one, "\n" when it has none. */
export function lineBreakOf(text: string): string {
  return LINE_BREAK.exec(text)?.[0] ?? "\n";
}

export function symbolTextEdit(
  mode: SymbolEditMode,
  lines: readonly string[],
  range: Range,
  givenText: string,
  lineBreak: string,
): TextEdit {
  const text = givenText.replace(new RegExp(LINE_BREAK, "g"), lineBreak);
  const { start, end } = range;
  switch (mode) {
    case "replace": {
      return {
        range: { start: replacedStart(lines, range, text), end: replacedEnd(lines, range, text) },
        newText: text,
      };
    }
    case "insertBefore": {
      const at = { line: start.line, column: 1 };
      return { range: { start: at, end: at }, newText: text.endsWith(lineBreak) ? text : text + lineBreak };
    }
    case "insertAfter": {
      // An end at column 1 of a later line (some servers) ends the line before it.
      const last = end.column === 1 && end.line > start.line ? end.line - 1 : end.line;
      const at = { line: last, column: codePointLength(lines[last - 1] ?? "") + 1 };
      const body = text.endsWith(lineBreak) ? text.slice(0, -lineBreak.length) : text;
      return { range: { start: at, end: at }, newText: lineBreak + body };
    }
  }
}

/**
 * Where a replacement starts: column 1 for an indented text after only indentation (the text
 * carries its own); before words on the symbol's line the text repeats (gopls starts a type at
 * its name, after `type`; a server may start a declaration after `export`); else the symbol's start.
 */
function replacedStart(lines: readonly string[], { start }: Range, text: string): Range["start"] {
  const before = [...(lines[start.line - 1] ?? "")].slice(0, start.column - 1).join("");
  const indented = /^[ \t]/.test(text);
  if (before.trim() === "") return indented ? { line: start.line, column: 1 } : start;
  const words = before.trim();
  const given = text.trimStart();
  if (!given.startsWith(words) || !/^\s/.test(given.slice(words.length))) return start;
  const indentation = codePointLength(before) - codePointLength(before.trimStart());
  return { line: start.line, column: indented ? 1 : indentation + 1 };
}

/**
 * Where a replacement ends: after the `;` or `,` that follows the symbol on its last line when the
 * text ends with it too (a JavaScript assignment's range stops before its `;`: `};` became `};;`).
 */
function replacedEnd(lines: readonly string[], { end }: Range, text: string): Range["end"] {
  const line = lines[end.line - 1] ?? "";
  const after = [...line].slice(end.column - 1).join("");
  const tail = after.trimEnd();
  if (!/^\s*[;,]+$/.test(tail) || !text.trimEnd().endsWith(tail.trim())) return end;
  return { line: end.line, column: end.column + codePointLength(tail) };
}
