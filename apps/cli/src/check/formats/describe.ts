// Wording shared by the human-readable formats (text, summary-md, github).
import { SEVERITIES, type Severity, type SeverityCounts } from "../findings.js";
import type { CheckReport, ReportedFinding } from "../report.js";

/** "2 errors, 1 warning" (hints only when present); "" when all counts are 0. */
export function countPhrase(counts: SeverityCounts, adjective = ""): string {
  const word: Record<Severity, [string, string]> = {
    error: ["error", "errors"],
    warning: ["warning", "warnings"],
    info: ["info", "infos"],
    hint: ["hint", "hints"],
  };
  const prefix = adjective ? `${adjective} ` : "";
  return SEVERITIES.filter((severity) => counts[severity] > 0)
    .map((severity) => `${counts[severity]} ${prefix}${word[severity][counts[severity] === 1 ? 0 : 1]}`)
    .join(", ");
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The one-line verdict: what failed, or that it passed, and against what. */
export function verdict(report: CheckReport): string {
  const found = report.base ? countPhrase(report.counts.new, "new") : countPhrase(report.counts.new);
  switch (report.outcome) {
    case "failed":
      return `failed: ${found} (failing on ${report.failOn} and above)`;
    case "incomplete":
      return `incomplete: ${plural(report.incomplete.length, "file")} without fresh diagnostics${found ? `; ${found} below the threshold` : ""}`;
    case "passed":
      return found ? `passed: ${found}, below the threshold (${report.failOn})` : "passed: no problems";
  }
}

/** "compared with main (1a2b3c4d)" or "". */
export function baseNote(report: CheckReport): string {
  return report.base ? `compared with ${report.base.ref} (${report.base.commit.slice(0, 8)})` : "";
}

export function scopeNote(report: CheckReport): string {
  const parts = [`${plural(report.files.length, "file")} checked`];
  if (report.skipped.length > 0) parts.push(`${report.skipped.length} skipped`);
  if (report.incomplete.length > 0) parts.push(`${report.incomplete.length} incomplete`);
  return parts.join(", ");
}

/** "2322" as TS2322 for TypeScript, the source's own code otherwise. */
export function codeLabel(finding: Pick<ReportedFinding, "source" | "code">): string {
  if (!finding.code) return finding.source;
  return finding.source === "typescript" && /^\d+$/.test(finding.code) ? `TS${finding.code}` : finding.code;
}

/** Skipped files grouped by reason, e.g. "no language server …: README.md, package.json". */
export function skippedByReason(report: CheckReport): Array<{ reason: string; files: string[] }> {
  const groups = new Map<string, string[]>();
  for (const { file, reason } of report.skipped) {
    const files = groups.get(reason);
    if (files) files.push(file);
    else groups.set(reason, [file]);
  }
  return [...groups].map(([reason, files]) => ({ reason, files }));
}
