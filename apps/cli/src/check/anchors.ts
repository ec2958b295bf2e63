// Line anchors: what identifies a diagnostic's place in a file without its line number, so that
// lines added or removed above it do not make an old diagnostic look new.
import { createHash } from "node:crypto";
import { type Finding, ruleIdOf } from "./findings.js";

export interface Anchor {
  /** The diagnostic's start line, trimmed, runs of whitespace collapsed. */
  text: string;
  /** Hash of the nearest non-blank lines above and below (same normalisation), 12 hex digits. */
  context: string;
}

export interface AnchoredFinding {
  finding: Finding;
  anchor: Anchor;
}

export function normalizeLine(line: string): string {
  return line.trim().replace(/\s+/g, " ");
}

/** Splits file text into lines the way language servers count them (\n, \r\n or \r). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** The anchor of 1-based `line` in `lines`; lines outside the file anchor to "". */
export function anchorAt(lines: readonly string[], line: number): Anchor {
  const index = line - 1;
  const nearest = (from: number, step: number): string => {
    for (let i = from; i >= 0 && i < lines.length; i += step) {
      const text = normalizeLine(lines[i] ?? "");
      if (text !== "") return text;
    }
    return "";
  };
  return {
    text: normalizeLine(lines[index] ?? ""),
    context: sha256(`${nearest(index - 1, -1)}\n${nearest(index + 1, 1)}`).slice(0, 12),
  };
}

export function anchorFindings(findings: readonly Finding[], lines: readonly string[]): AnchoredFinding[] {
  return findings.map((finding) => ({ finding, anchor: anchorAt(lines, finding.line) }));
}

/** Same rule, message, line text and surrounding lines: the strict identity of a finding. */
export function exactKey({ finding, anchor }: AnchoredFinding): string {
  return `${lineKey({ finding, anchor })}\0${anchor.context}`;
}

/** Same rule, message and line text, wherever the surrounding lines moved. */
export function lineKey({ finding, anchor }: AnchoredFinding): string {
  return `${ruleIdOf(finding)}\0${finding.message}\0${anchor.text}`;
}

/**
 * A fingerprint stable across line shifts: a hash of the exact key and its occurrence among
 * findings of the same file with the same key (`<hash>:<n>`, n from 1).
 */
export function fingerprints(findings: readonly AnchoredFinding[]): string[] {
  const seen = new Map<string, number>();
  return findings.map((anchored) => {
    const hash = sha256(`${anchored.finding.file}\0${exactKey(anchored)}`).slice(0, 32);
    const occurrence = (seen.get(hash) ?? 0) + 1;
    seen.set(hash, occurrence);
    return `${hash}:${occurrence}`;
  });
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
