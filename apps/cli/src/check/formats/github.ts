// GitHub Actions workflow commands: one annotation per new finding (`::error file=…,line=…,col=…::msg`),
// shown on the pull request's diff; a warning per incomplete file; then a plain summary line.
// Only new findings are annotated: existing ones are not this change's doing.
import type { Severity } from "../findings.js";
import type { CheckReport } from "../report.js";
import { baseNote, codeLabel, verdict } from "./describe.js";
import type { RenderContext } from "./renderContext.js";

const COMMAND: Record<Severity, string> = { error: "error", warning: "warning", info: "notice", hint: "notice" };

export function renderGithub(report: CheckReport, context: RenderContext): string {
  const lines: string[] = [];
  for (const file of report.files) {
    for (const finding of file.findings) {
      if (finding.state !== "new") continue;
      const properties = [
        ["file", `${context.pathPrefix}${file.file}`],
        ["line", String(finding.line)],
        ["endLine", String(finding.endLine)],
        ["col", String(finding.column)],
        ["endColumn", String(finding.endColumn)],
        ["title", `${codeLabel(finding)}${report.base ? " (new)" : ""}`],
      ];
      lines.push(command(COMMAND[finding.severity], properties, finding.message));
    }
  }
  for (const { file, side, reason } of report.incomplete) {
    lines.push(
      command(
        "warning",
        [
          ["file", `${context.pathPrefix}${file}`],
          ["title", "lspmesh: diagnostics incomplete"],
        ],
        `${side === "base" ? "In the base: " : ""}${reason}`,
      ),
    );
  }
  const note = baseNote(report);
  lines.push(`lspmesh check ${verdict(report)}${note ? ` · ${note}` : ""}`);
  return `${lines.join("\n")}\n`;
}

function command(name: string, properties: string[][], message: string): string {
  const props = properties.map(([key, value]) => `${key}=${escapeProperty(value!)}`).join(",");
  return `::${name} ${props}::${escapeData(message)}`;
}

/** actions/toolkit escaping of a command's message. */
export function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

/** actions/toolkit escaping of a property value. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}
