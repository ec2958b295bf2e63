// Output formats of `lspmesh check`, all rendered from one CheckReport.
import type { CheckReport } from "../report.js";
import { renderCodeQuality } from "./codeQuality.js";
import { renderGithub } from "./github.js";
import type { RenderContext } from "./renderContext.js";
import { renderSarif } from "./sarif.js";
import { renderSummaryMarkdown } from "./summaryMarkdown.js";
import { renderText } from "./text.js";

export type { RenderContext } from "./renderContext.js";

export const FORMATS = ["text", "json", "sarif", "github", "codequality", "summary-md"] as const;
export type FormatName = (typeof FORMATS)[number];

export function render(format: FormatName, report: CheckReport, context: RenderContext): string {
  switch (format) {
    case "text":
      return renderText(report, context);
    case "json":
      return `${JSON.stringify(report, null, 2)}\n`;
    case "sarif":
      return `${JSON.stringify(renderSarif(report, context), null, 2)}\n`;
    case "github":
      return renderGithub(report, context);
    case "codequality":
      return `${JSON.stringify(renderCodeQuality(report, context), null, 2)}\n`;
    case "summary-md":
      return renderSummaryMarkdown(report);
  }
}
