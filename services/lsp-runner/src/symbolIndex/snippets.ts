/** Characters of a declaration's line kept as its snippet in the index. */
export const MAX_SNIPPET_CHARS = 160;

/** The source line of a 1-based line number, trimmed and cut to MAX_SNIPPET_CHARS. */
export function snippetLine(lines: readonly string[], line: number): string {
  const text = (lines[line - 1] ?? "").trim();
  return text.length > MAX_SNIPPET_CHARS ? `${text.slice(0, MAX_SNIPPET_CHARS)}…` : text;
}
