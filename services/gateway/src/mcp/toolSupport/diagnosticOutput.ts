// One diagnostic as tools answer it (diagnostics, check_edit, the delta of write tools): its output
// schema, its conversion from the runner's message, and its text line.
import { type Diagnostic, Severity } from "@lspmesh/proto";
import { z } from "zod";
import { rangeFrom, rangeShape } from "./shared.js";

/** Most characters of one diagnostic's message in the text (structuredContent has all of it). */
const MESSAGE_TEXT_LIMIT = 1_000;

export const SEVERITIES = ["error", "warning", "information", "hint"] as const;
export type SeverityName = (typeof SEVERITIES)[number];

const SEVERITY_NAMES: Record<Severity, SeverityName> = {
  [Severity.ERROR]: "error",
  [Severity.WARNING]: "warning",
  [Severity.INFORMATION]: "information",
  [Severity.HINT]: "hint",
  // LSP leaves a missing severity to the client; editors show it as an error.
  [Severity.UNSPECIFIED]: "error",
};

export const diagnosticShape = {
  ...rangeShape,
  severity: z.enum(SEVERITIES),
  code: z.string().optional().describe("The server's diagnostic code, e.g. 2322."),
  source: z.string().optional().describe("What produced it, e.g. typescript."),
  message: z.string(),
};

export const diagnosticOutput = z.object(diagnosticShape);
export type DiagnosticOutput = z.output<typeof diagnosticOutput>;

export function diagnosticFrom(diagnostic: Diagnostic | undefined): DiagnosticOutput {
  const output: DiagnosticOutput = {
    ...rangeFrom(diagnostic?.range),
    severity: SEVERITY_NAMES[diagnostic?.severity ?? Severity.UNSPECIFIED] ?? "error",
    message: diagnostic?.message ?? "",
  };
  if (diagnostic?.code) output.code = diagnostic.code;
  if (diagnostic?.source) output.source = diagnostic.source;
  return output;
}

/** "src/a.ts:3:7 error 2322: Type ..." with continuation lines of long messages indented. */
export function diagnosticLine(file: string, diagnostic: DiagnosticOutput): string {
  const code = diagnostic.code ? ` ${diagnostic.code}` : "";
  let message = diagnostic.message.trimEnd();
  if (message.length > MESSAGE_TEXT_LIMIT) message = `${message.slice(0, MESSAGE_TEXT_LIMIT)}… (message cut)`;
  return `${file}:${diagnostic.line}:${diagnostic.column} ${diagnostic.severity}${code}: ${message.replaceAll("\n", "\n  ")}`;
}
