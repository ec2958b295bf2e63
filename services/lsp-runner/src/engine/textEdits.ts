// Applies text edits given in lspmesh positions (1-based line, 1-based code-point column) to a
// document's text. Pure: no files, no servers.
import { invalidArgument } from "../errors.js";
import type { Position, TextEdit } from "./answers.js";

const LINE_BREAK = /\r\n|\r|\n/g;

/**
 * The text after the edits. Edits do not overlap and all refer to the original text (LSP
 * semantics); edits inserting at the same position apply in their given order.
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[], file: string): string {
  const starts = lineStarts(text);
  const spans = edits.map((edit, index) => {
    const start = offsetOf(text, starts, edit.range.start, file);
    const end = offsetOf(text, starts, edit.range.end, file);
    if (end < start) throw invalidArgument(`an edit of ${file} ends before it starts; give start before end`);
    return { start, end, newText: edit.newText, index };
  });
  spans.sort((a, b) => a.start - b.start || a.end - b.end || a.index - b.index);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]!.start < spans[i - 1]!.end) {
      throw invalidArgument(`edits of ${file} overlap; give edits that each change a separate part of the file`);
    }
  }
  let result = "";
  let cursor = 0;
  for (const span of spans) {
    result += text.slice(cursor, span.start) + span.newText;
    cursor = span.end;
  }
  return result + text.slice(cursor);
}

/** The edits that change the text: an edit replacing a span with the same text is left out. */
export function changingEdits(text: string, edits: readonly TextEdit[], file: string): TextEdit[] {
  const starts = lineStarts(text);
  return edits.filter(
    (edit) =>
      text.slice(offsetOf(text, starts, edit.range.start, file), offsetOf(text, starts, edit.range.end, file)) !==
      edit.newText,
  );
}

/** As editors count them: a final newline ends the last line, it starts none. */
function shownLines(text: string, starts: readonly number[]): number {
  return starts.length > 1 && starts[starts.length - 1] === text.length ? starts.length - 1 : starts.length;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (const match of text.matchAll(LINE_BREAK)) starts.push(match.index + match[0].length);
  return starts;
}

/** UTF-16 offset of a position; the line after the last one (column 1) is the end of the text. */
function offsetOf(text: string, starts: readonly number[], position: Position, file: string): number {
  if (position.line === starts.length + 1 && position.column === 1) return text.length;
  const lineStart = starts[position.line - 1];
  if (lineStart === undefined || position.column < 1) {
    throw invalidArgument(
      `an edit of ${file} names line ${position.line} column ${position.column}, outside the file's ${shownLines(text, starts)} lines (positions are 1-based)`,
    );
  }
  const next = starts[position.line];
  const lineEnd = next === undefined ? text.length : next - lineBreakLength(text, next);
  let offset = lineStart;
  for (let column = 1; column < position.column; column++) {
    if (offset >= lineEnd) {
      throw invalidArgument(
        `an edit of ${file} names column ${position.column} of line ${position.line}, past its end (columns are 1-based code points)`,
      );
    }
    offset += text.codePointAt(offset)! > 0xffff ? 2 : 1;
  }
  return offset;
}

function lineBreakLength(text: string, nextLineStart: number): number {
  return text[nextLineStart - 2] === "\r" && text[nextLineStart - 1] === "\n" ? 2 : 1;
}
