// What an edit changed in a file's diagnostics: each diagnostic after it is "new" or "unchanged",
// each one before it that is gone is "fixed". The matching is `lspmesh check`'s: the same rule
// (severity, source, code) and message on the same line text pairs up wherever the line moved;
// the nearest non-blank lines around it break ties, so a copied line's old error pairs the original;
// last, the same rule and message on the same line number pair (an edit of that line's text).
// clangd ends a message with " (fix available)" when its include fixer found a fix, which depends
// on what its index holds at that moment, not on the edit: that ending is no part of the message.
import type { Diagnostic } from "./answers.js";

export type DiagnosticState = "new" | "fixed" | "unchanged";

export interface DiagnosticChange {
  file: string;
  state: DiagnosticState;
  /** For "fixed", the diagnostic as it was before (its range in the text before the edit). */
  diagnostic: Diagnostic;
}

/** One file's diagnostics and the text lines their ranges refer to. */
export interface DiagnosedText {
  diagnostics: readonly Diagnostic[];
  lines: readonly string[];
}

interface Anchored {
  diagnostic: Diagnostic;
  lineKey: string;
  exactKey: string;
  sameLineKey: string;
}

const STATE_ORDER: Record<DiagnosticState, number> = { new: 0, fixed: 1, unchanged: 2 };

/** The changes of one file: new first, then fixed, then unchanged, each by position. */
export function compareDiagnostics(file: string, before: DiagnosedText, after: DiagnosedText): DiagnosticChange[] {
  let unmatchedAfter = anchored(after);
  let unmatchedBefore = anchored(before);
  const changes: DiagnosticChange[] = [];
  // The strict pass first: line text and surroundings; then line text alone; then the same rule
  // and message on the same line number (the line's own text changed: a rename on it).
  for (const keyOf of [(a: Anchored) => a.exactKey, (a: Anchored) => a.lineKey, (a: Anchored) => a.sameLineKey]) {
    const waiting = new Map<string, Anchored[]>();
    for (const entry of unmatchedBefore) {
      const queue = waiting.get(keyOf(entry));
      if (queue) queue.push(entry);
      else waiting.set(keyOf(entry), [entry]);
    }
    const paired = new Set<Anchored>();
    const still: Anchored[] = [];
    for (const entry of unmatchedAfter) {
      const partner = waiting.get(keyOf(entry))?.shift();
      if (partner) {
        paired.add(partner);
        changes.push({ file, state: "unchanged", diagnostic: entry.diagnostic });
      } else {
        still.push(entry);
      }
    }
    unmatchedAfter = still;
    unmatchedBefore = unmatchedBefore.filter((entry) => !paired.has(entry));
  }
  changes.push(...unmatchedAfter.map((entry) => ({ file, state: "new" as const, diagnostic: entry.diagnostic })));
  changes.push(...unmatchedBefore.map((entry) => ({ file, state: "fixed" as const, diagnostic: entry.diagnostic })));
  return changes.sort(byStateAndPosition);
}

export function byStateAndPosition(a: DiagnosticChange, b: DiagnosticChange): number {
  return (
    STATE_ORDER[a.state] - STATE_ORDER[b.state] ||
    (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
    a.diagnostic.range.start.line - b.diagnostic.range.start.line ||
    a.diagnostic.range.start.column - b.diagnostic.range.start.column
  );
}

function anchored({ diagnostics, lines }: DiagnosedText): Anchored[] {
  return diagnostics.map((diagnostic) => {
    const index = diagnostic.range.start.line - 1;
    const rule = `${diagnostic.severity}\0${diagnostic.source}\0${diagnostic.code}\0${withoutFixCount(diagnostic.message)}`;
    const lineKey = `${rule}\0${normalized(lines[index])}`;
    const context = `${nearest(lines, index - 1, -1)}\n${nearest(lines, index + 1, 1)}`;
    return { diagnostic, lineKey, exactKey: `${lineKey}\0${context}`, sameLineKey: `${rule}\0${index}` };
  });
}

/** clangd's " (fix available)" / " (fixes available)" ending left out. */
function withoutFixCount(message: string): string {
  return message.replace(/ \((?:fix|fixes) available\)$/, "");
}

function nearest(lines: readonly string[], from: number, step: number): string {
  for (let i = from; i >= 0 && i < lines.length; i += step) {
    const text = normalized(lines[i]);
    if (text !== "") return text;
  }
  return "";
}

function normalized(line: string | undefined): string {
  return (line ?? "").trim().replace(/\s+/g, " ");
}
