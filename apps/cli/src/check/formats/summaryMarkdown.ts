// Markdown for a pull-request comment or $GITHUB_STEP_SUMMARY: verdict, counts, the new findings
// in a table, and fixed / incomplete / skipped files folded away.
import { SEVERITIES, type SeverityCounts } from "../findings.js";
import type { CheckReport, ReportedFinding } from "../report.js";
import { baseNote, codeLabel, scopeNote, skippedByReason, verdict } from "./describe.js";

/** Rows per findings table, at most (a comment has a size limit; the JSON report has all). */
const MAX_ROWS = 100;

export function renderSummaryMarkdown(report: CheckReport): string {
  const icon = report.outcome === "passed" ? "✅" : report.outcome === "failed" ? "❌" : "⚠️";
  const out: string[] = [`## ${icon} lspmesh check ${verdict(report)}`, ""];
  out.push([scopeNote(report), baseNote(report), `--fail-on ${report.failOn}`].filter(Boolean).join(" · "));
  out.push("");

  const rows: Array<[string, SeverityCounts]> = report.base
    ? [
        ["new", report.counts.new],
        ["fixed", report.counts.fixed],
        ["unchanged", report.counts.unchanged],
      ]
    : [["found", report.counts.new]];
  const shownSeverities = SEVERITIES.filter((s) => s !== "hint" || rows.some(([, counts]) => counts.hint > 0));
  out.push(`| | ${shownSeverities.join(" | ")} |`, `|---|${shownSeverities.map(() => "---:").join("|")}|`);
  for (const [label, counts] of rows) out.push(`| ${label} | ${shownSeverities.map((s) => counts[s]).join(" | ")} |`);
  out.push("");

  const all = report.files.flatMap((file) => file.findings);
  const fresh = all.filter((finding) => finding.state === "new");
  if (fresh.length > 0) {
    out.push(report.base ? "### New" : "### Findings", "", ...table(fresh), "");
  }
  const fixed = all.filter((finding) => finding.state === "fixed");
  if (fixed.length > 0) out.push(...folded(`Fixed (${fixed.length})`, table(fixed)));
  if (report.incomplete.length > 0) {
    out.push(
      ...folded(
        `Incomplete (${report.incomplete.length})`,
        report.incomplete.map(
          ({ file, side, reason }) => `- ${code(file)}${side === "base" ? " (base)" : ""}: ${cell(reason)}`,
        ),
      ),
    );
  }
  if (report.skipped.length > 0) {
    out.push(
      ...folded(
        `Skipped (${report.skipped.length})`,
        skippedByReason(report).map(({ reason, files }) => `- ${cell(reason)}: ${files.map(code).join(", ")}`),
      ),
    );
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function table(findings: ReportedFinding[]): string[] {
  const lines = ["| File | Line | Severity | Code | Message |", "|---|---:|---|---|---|"];
  for (const finding of findings.slice(0, MAX_ROWS)) {
    lines.push(
      `| ${code(finding.file)} | ${finding.line}:${finding.column} | ${finding.severity} | ${cell(codeLabel(finding))} | ${cell(finding.message)} |`,
    );
  }
  if (findings.length > MAX_ROWS)
    lines.push(`| … | | | | and ${findings.length - MAX_ROWS} more (see the JSON report) |`);
  return lines;
}

function folded(summary: string, body: string[]): string[] {
  return ["<details>", `<summary>${summary}</summary>`, "", ...body, "", "</details>", ""];
}

/** Text safe inside a table cell: no pipes, line breaks or HTML. */
function cell(text: string): string {
  return text
    .trim()
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll("|", "\\|")
    .replace(/\r?\n\s*/g, "<br>");
}

function code(path: string): string {
  return path.includes("`") ? cell(path) : `\`${path.replaceAll("|", "\\|")}\``;
}
