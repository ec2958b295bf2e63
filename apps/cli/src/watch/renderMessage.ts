// One file's current diagnostics as `lspmesh diagnostics` prints them: a text block, or the
// message itself as one JSON line (the payload of docs/events.md).
import type { DiagnosticsMessage } from "@lspmesh/events";
import { countBySeverity, severityFromLsp } from "../check/findings.js";
import { codeLabel, countPhrase } from "../check/formats/describe.js";

export function renderMessageText(message: DiagnosticsMessage): string {
  const time = new Date(message.publishedAt).toISOString().slice(11, 19);
  if (message.deleted) return `${time} ${message.file}: deleted (its diagnostics are cleared)\n`;
  const severities = message.diagnostics.map((d) => ({ ...d, severity: severityFromLsp(d.severity) }));
  const summary = countPhrase(countBySeverity(severities)) || "no problems";
  const lines = [`${time} ${message.file}: ${summary} (version ${message.version}, ${message.language})`];
  for (const d of severities) {
    const text = d.message.trimEnd().replaceAll("\n", "\n      ");
    lines.push(`  ${d.range.start.line}:${d.range.start.column}  ${d.severity}  ${text}  ${codeLabel(d)}`);
  }
  return `${lines.join("\n")}\n`;
}

export function renderMessageJson(message: DiagnosticsMessage): string {
  return `${JSON.stringify(message)}\n`;
}
