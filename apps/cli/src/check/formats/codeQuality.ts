// GitLab Code Quality report (artifacts:reports:codequality): every current finding; GitLab
// compares the merge request's report with the target branch's by fingerprint itself.
import type { Severity } from "../findings.js";
import type { CheckReport } from "../report.js";
import type { RenderContext } from "./renderContext.js";

const SEVERITY: Record<Severity, "major" | "minor" | "info"> = {
  error: "major",
  warning: "minor",
  info: "info",
  hint: "info",
};

export function renderCodeQuality(report: CheckReport, context: RenderContext) {
  return report.files.flatMap((file) =>
    file.findings
      .filter((finding) => finding.state !== "fixed")
      .map((finding) => ({
        type: "issue",
        check_name: finding.ruleId,
        description: finding.message,
        severity: SEVERITY[finding.severity],
        fingerprint: finding.fingerprint,
        location: {
          path: `${context.pathPrefix}${file.file}`,
          lines: { begin: finding.line, end: finding.endLine },
        },
      })),
  );
}
