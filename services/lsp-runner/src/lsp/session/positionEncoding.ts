// Converts between lspmesh positions (1-based line, 1-based Unicode code-point column) and LSP
// positions (0-based line, 0-based character offset in the negotiated encoding).

export type PositionEncoding = "utf-8" | "utf-16" | "utf-32";

export interface Position {
  /** 1-based line. */
  line: number;
  /** 1-based column in Unicode code points. */
  column: number;
}

export interface Range {
  start: Position;
  /** Exclusive. */
  end: Position;
}

export interface LspPosition {
  line: number;
  character: number;
}

function unitsOf(codePoint: number, encoding: PositionEncoding): number {
  if (encoding === "utf-32") return 1;
  if (encoding === "utf-16") return codePoint > 0xffff ? 2 : 1;
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/** Offset in `encoding` units of the first `codePoints` code points of `lineText` (clamped to the line). */
export function codePointsToUnits(lineText: string, codePoints: number, encoding: PositionEncoding): number {
  let units = 0;
  let seen = 0;
  for (const char of lineText) {
    if (seen >= codePoints) break;
    units += unitsOf(char.codePointAt(0)!, encoding);
    seen++;
  }
  return units;
}

/** Number of whole code points covered by `units` offset units of `lineText` (clamped to the line). */
export function unitsToCodePoints(lineText: string, units: number, encoding: PositionEncoding): number {
  let consumed = 0;
  let codePoints = 0;
  for (const char of lineText) {
    const width = unitsOf(char.codePointAt(0)!, encoding);
    // An offset inside a character (a lone surrogate half) counts as that character's start.
    if (consumed + width > units) break;
    consumed += width;
    codePoints++;
  }
  return codePoints;
}

/** Number of code points in a line (the largest valid column is this + 1). */
export function codePointLength(lineText: string): number {
  let count = 0;
  for (const _ of lineText) count++;
  return count;
}

export function toLspPosition(lines: readonly string[], position: Position, encoding: PositionEncoding): LspPosition {
  const lineText = lines[position.line - 1] ?? "";
  return { line: position.line - 1, character: codePointsToUnits(lineText, position.column - 1, encoding) };
}

export function fromLspPosition(lines: readonly string[], position: LspPosition, encoding: PositionEncoding): Position {
  const lineText = lines[position.line] ?? "";
  return { line: position.line + 1, column: unitsToCodePoints(lineText, position.character, encoding) + 1 };
}

export function fromLspRange(
  lines: readonly string[],
  range: { start: LspPosition; end: LspPosition },
  encoding: PositionEncoding,
): Range {
  return { start: fromLspPosition(lines, range.start, encoding), end: fromLspPosition(lines, range.end, encoding) };
}

export function toLspRange(lines: readonly string[], range: Range, encoding: PositionEncoding) {
  return { start: toLspPosition(lines, range.start, encoding), end: toLspPosition(lines, range.end, encoding) };
}
