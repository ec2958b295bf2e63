// SARIF 2.1.0: one run, tool.driver with one rule per `<source>/<code>`, a result per current
// finding (new and unchanged; with a base, baselineState says which), repository-relative
// locations (uriBaseId %SRCROOT%) and partialFingerprints that survive line shifts.
//
// Columns: lspmesh counts Unicode code points (docs/tools.md, Positions), and SARIF lets a run say so:
// the run sets columnKind "unicodeCodePoints" and every column is 1-based in code points
// (endColumn exclusive, as SARIF defines it). Fixed findings are not results (they are absent from
// the analysed code); their count is in run.properties.
import type { Severity } from "../findings.js";
import type { CheckReport, ReportedFinding } from "../report.js";
import type { RenderContext } from "./renderContext.js";

export const SARIF_SCHEMA_URI =
  "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
/** partialFingerprints key of lspmesh's line-shift-proof fingerprint (versioned, as SARIF asks). */
export const FINGERPRINT_KEY = "lspmeshFingerprint/v1";

const LEVEL: Record<Severity, "error" | "warning" | "note"> = {
  error: "error",
  warning: "warning",
  info: "note",
  hint: "note",
};

export function renderSarif(report: CheckReport, context: RenderContext) {
  const current = report.files.flatMap((file) => file.findings.filter((finding) => finding.state !== "fixed"));
  const ruleIds = [...new Set(current.map((finding) => finding.ruleId))].sort();
  const ruleIndex = new Map(ruleIds.map((id, index) => [id, index]));
  const rules = ruleIds.map((id) => {
    const example = current.find((finding) => finding.ruleId === id)!;
    return {
      id,
      shortDescription: { text: `${example.source || "lspmesh"} diagnostic ${example.code || "(no code)"}` },
      properties: { tags: [example.source || "lspmesh"] },
    };
  });
  const notifications = report.incomplete.map(({ file, side, reason }) => ({
    level: "warning" as const,
    message: { text: `diagnostics incomplete${side === "base" ? " in the base" : ""}: ${reason}` },
    locations: [{ physicalLocation: { artifactLocation: artifact(context, file) } }],
  }));
  return {
    $schema: SARIF_SCHEMA_URI,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "lspmesh",
            version: report.tool.version,
            rules,
          },
        },
        columnKind: "unicodeCodePoints",
        invocations: [
          {
            executionSuccessful: report.incomplete.length === 0,
            exitCode: report.exitCode,
            ...(notifications.length > 0 ? { toolExecutionNotifications: notifications } : {}),
          },
        ],
        results: current.map((finding) => result(finding, ruleIndex.get(finding.ruleId)!, report, context)),
        properties: {
          failOn: report.failOn,
          outcome: report.outcome,
          servers: report.servers,
          ...(report.base ? { base: report.base } : {}),
          counts: report.counts,
          skipped: report.skipped.length,
        },
      },
    ],
  };
}

function result(finding: ReportedFinding, ruleIndex: number, report: CheckReport, context: RenderContext) {
  return {
    ruleId: finding.ruleId,
    ruleIndex,
    level: LEVEL[finding.severity],
    message: { text: finding.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: artifact(context, finding.file),
          region: {
            startLine: finding.line,
            startColumn: finding.column,
            endLine: finding.endLine,
            endColumn: finding.endColumn,
          },
        },
      },
    ],
    partialFingerprints: { [FINGERPRINT_KEY]: finding.fingerprint },
    ...(report.base ? { baselineState: finding.state === "new" ? "new" : "unchanged" } : {}),
  };
}

function artifact(context: RenderContext, file: string) {
  const uri = `${context.pathPrefix}${file}`.split("/").map(encodeURIComponent).join("/");
  return { uri, uriBaseId: "%SRCROOT%" };
}
