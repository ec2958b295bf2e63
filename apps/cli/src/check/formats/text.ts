// Human text, grouped by file. With a base: new findings and fixed ones are listed, unchanged
// ones counted. Colour only when asked for (a TTY without NO_COLOR).
import type { Severity } from "../findings.js";
import type { CheckReport, ReportedFinding } from "../report.js";
import { baseNote, codeLabel, countPhrase, plural, scopeNote, skippedByReason, verdict } from "./describe.js";
import type { RenderContext } from "./renderContext.js";

const ANSI = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, blue: 34 } as const;
type Style = keyof typeof ANSI;

/** Skipped files listed by name, at most (the JSON report has all of them). */
const SKIPPED_SHOWN = 10;

export function renderText(report: CheckReport, context: RenderContext): string {
  const paint = (style: Style, text: string) => (context.color ? `\x1b[${ANSI[style]}m${text}\x1b[0m` : text);
  const severityStyle: Record<Severity, Style> = { error: "red", warning: "yellow", info: "blue", hint: "dim" };
  const out: string[] = [];

  for (const file of report.files) {
    const shown = file.findings.filter((f) => f.state !== "unchanged");
    if (shown.length === 0) continue;
    out.push(paint("bold", file.baseFile ? `${file.file} (was ${file.baseFile})` : file.file));
    const width = Math.max(...shown.map((f) => position(f).length));
    for (const finding of shown) {
      const tag = report.base ? `  ${finding.state === "fixed" ? paint("green", "fixed") : paint("bold", "new")}` : "";
      // Continuation lines of long messages line up under the message, keeping their own indentation.
      const message = finding.message.trimEnd().replaceAll("\n", `\n${" ".repeat(width + 13)}`);
      out.push(
        `  ${paint("dim", position(finding).padEnd(width))}  ${paint(severityStyle[finding.severity], finding.severity.padEnd(7))}  ${message}  ${paint("dim", codeLabel(finding))}${tag}`,
      );
    }
    out.push("");
  }

  for (const { file, side, reason } of report.incomplete) {
    out.push(`${paint("yellow", "incomplete")} ${file}${side === "base" ? " (in the base)" : ""}: ${reason}`);
  }
  for (const { reason, files } of skippedByReason(report)) {
    const listed = files.slice(0, SKIPPED_SHOWN).join(", ");
    const more = files.length > SKIPPED_SHOWN ? `, and ${files.length - SKIPPED_SHOWN} more` : "";
    out.push(paint("dim", `skipped ${plural(files.length, "file")} (${reason}): ${listed}${more}`));
  }
  if (report.incomplete.length > 0 || report.skipped.length > 0) out.push("");

  const details = [scopeNote(report)];
  if (report.base) {
    details.push(baseNote(report));
    const fixed = countPhrase(report.counts.fixed, "fixed");
    const unchanged = countPhrase(report.counts.unchanged);
    if (fixed) details.push(fixed);
    if (unchanged) details.push(`${unchanged} already there (not listed)`);
  }
  const mark = report.outcome === "passed" ? paint("green", "✓") : paint("red", "✗");
  out.push(`${mark} lspmesh check ${verdict(report)}`);
  out.push(paint("dim", `  ${details.join(" · ")}`));
  return `${out.join("\n")}\n`;
}

/** "3:14" — where a fixed finding was in the base. */
function position(finding: ReportedFinding): string {
  return `${finding.line}:${finding.column}`;
}
