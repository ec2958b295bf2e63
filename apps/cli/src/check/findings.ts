// One diagnostic as `lspmesh check` reports it, whichever way it was collected (embedded or
// through a gateway): lspmesh positions (1-based line, 1-based code-point column, end exclusive).

export const SEVERITIES = ["error", "warning", "info", "hint"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Severities `--fail-on` accepts: hints (editor-only suggestions) never fail a check. */
export const FAIL_ON_LEVELS = ["error", "warning", "info"] as const;
export type FailOn = (typeof FAIL_ON_LEVELS)[number];

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2, hint: 3 };

/** True when `severity` is as serious as `threshold` or more. */
export function atOrAbove(severity: Severity, threshold: FailOn): boolean {
  return RANK[severity] <= RANK[threshold];
}

/** LSP DiagnosticSeverity (1 error … 4 hint); a missing or unknown one counts as an error, as editors show it. */
export function severityFromLsp(value: number): Severity {
  return SEVERITIES[value - 1] ?? "error";
}

/** The gateway's severity names ("information" is spelled out there). */
export function severityFromName(name: string): Severity {
  if (name === "information") return "info";
  return (SEVERITIES as readonly string[]).includes(name) ? (name as Severity) : "error";
}

export interface Finding {
  /** Workspace-relative POSIX path. */
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Severity;
  /** The server's code, e.g. "2322"; "" when it gave none. */
  code: string;
  /** What produced it, e.g. "typescript"; "" when unknown. */
  source: string;
  message: string;
}

/** Stable rule id: `<source>/<code>`, e.g. "typescript/2322" ("lspmesh" stands in for a missing part). */
export function ruleIdOf(finding: Pick<Finding, "source" | "code">): string {
  return `${finding.source || "lspmesh"}/${finding.code || "diagnostic"}`;
}

/** Orders findings by position, then rule and message, so reports are deterministic. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    a.line - b.line ||
    a.column - b.column ||
    a.endLine - b.endLine ||
    a.endColumn - b.endColumn ||
    compareText(ruleIdOf(a), ruleIdOf(b)) ||
    compareText(a.message, b.message)
  );
}

/** Ordinal string order (not locale order), identical on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export type SeverityCounts = Record<Severity, number>;

export function countBySeverity(findings: Iterable<{ severity: Severity }>): SeverityCounts {
  const counts: SeverityCounts = { error: 0, warning: 0, info: 0, hint: 0 };
  for (const finding of findings) counts[finding.severity] += 1;
  return counts;
}
