// Where a symbol's name is written. Answers point at the name ("ready for the position tools"),
// but some servers start a symbol's range earlier on its line: tsserver's later overloads and its
// workspace symbols at the declaration (`export class …`), pyright's `*args` at the star. Moved to
// the name where the name is written on that line within the range; left as the server gave it
// otherwise (names a server makes up, such as "(anonymous)" or "constructor").
import type { Range } from "./answers.js";

/** `range` (1-based lines, code-point columns) as the first whole-word `name` on its first line, where it did not start there. */
export function startingAtName(lines: readonly string[], range: Range, name: string): Range {
  const text = lines[range.start.line - 1];
  if (text === undefined || name === "") return range;
  const points = [...text];
  const from = range.start.column - 1;
  const to = range.end.line === range.start.line ? Math.min(range.end.column - 1, points.length) : points.length;
  if (points.slice(from, from + [...name].length).join("") === name) return range;
  const within = points.slice(from, to).join("");
  const word = new RegExp(`(?<![\\p{L}\\p{N}_$])${escapeRegExp(name)}(?![\\p{L}\\p{N}_$])`, "u").exec(within);
  if (!word) return range;
  const column = range.start.column + [...within.slice(0, word.index)].length;
  // The name's own extent: a range that started at `export` ended with the whole declaration.
  return {
    start: { line: range.start.line, column },
    end: { line: range.start.line, column: column + [...name].length },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
