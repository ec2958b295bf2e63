// diagnostics: errors and warnings for some files or the whole workspace, optionally waiting
// for diagnostics that belong to the files' current content.
import { type Diagnostic, type DiagnosticsAnswer, type FileDiagnostics, Severity } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { counted, emptyAnswerText, isNotReady, lines, statusHeader } from "../text.js";
import { toGatewayError } from "../toolErrors.js";
import {
  answerStatusShape,
  collectParts,
  fileArgument,
  mergeStatuses,
  rangeFrom,
  rangeShape,
  statusFrom,
  workspaceArgument,
} from "../toolSupport/shared.js";

/** Default and largest wait for fresh diagnostics, in ms. */
const DEFAULT_WAIT_MS = 3000;
const MAX_WAIT_MS = 60_000;
const MAX_FILES = 500;

const SEVERITIES = ["error", "warning", "information", "hint"] as const;
type SeverityName = (typeof SEVERITIES)[number];

const SEVERITY_NAMES: Record<Severity, SeverityName> = {
  [Severity.ERROR]: "error",
  [Severity.WARNING]: "warning",
  [Severity.INFORMATION]: "information",
  [Severity.HINT]: "hint",
  // LSP leaves a missing severity to the client; editors show it as an error.
  [Severity.UNSPECIFIED]: "error",
};

const input = z.object({
  workspace: workspaceArgument,
  files: z
    .array(fileArgument, { error: "files must be a list of workspace-relative paths" })
    .max(MAX_FILES, { error: `files lists more than ${MAX_FILES} paths; omit it to check the whole workspace` })
    .optional()
    .describe('Workspace-relative paths to check, e.g. ["src/a.ts"]. Omit for every file the servers have checked.'),
  wait_ms: z
    .number({ error: "wait_ms must be a number" })
    .int({ error: "wait_ms must be a whole number of milliseconds" })
    .min(0, { error: "wait_ms must be 0 or more" })
    .max(MAX_WAIT_MS, { error: `wait_ms must be at most ${MAX_WAIT_MS}` })
    .default(DEFAULT_WAIT_MS)
    .describe(
      `Milliseconds to wait for diagnostics computed from the files' current content, e.g. right after an edit (0-${MAX_WAIT_MS}, default ${DEFAULT_WAIT_MS}). 0 answers at once with what is known.`,
    ),
});

const diagnosticOutput = z.object({
  ...rangeShape,
  severity: z.enum(SEVERITIES),
  code: z.string().optional().describe("The server's diagnostic code, e.g. 2322."),
  source: z.string().optional().describe("What produced it, e.g. typescript."),
  message: z.string(),
});

type DiagnosticOutput = z.output<typeof diagnosticOutput>;

const fileDiagnosticsOutput = z.object({
  file: z.string(),
  fresh: z.boolean().describe("True when the diagnostics belong to the file's current content."),
  version: z.number().int().describe("Document version the diagnostics belong to."),
  diagnostics: z.array(diagnosticOutput),
});

type FileDiagnosticsOutput = z.output<typeof fileDiagnosticsOutput>;

const output = z.object({
  ...answerStatusShape,
  files: z.array(fileDiagnosticsOutput),
  counts: z.object({
    error: z.number().int(),
    warning: z.number().int(),
    information: z.number().int(),
    hint: z.number().int(),
  }),
});

function diagnosticFrom(diagnostic: Diagnostic): DiagnosticOutput {
  const output: DiagnosticOutput = {
    ...rangeFrom(diagnostic.range),
    severity: SEVERITY_NAMES[diagnostic.severity] ?? "error",
    message: diagnostic.message,
  };
  if (diagnostic.code) output.code = diagnostic.code;
  if (diagnostic.source) output.source = diagnostic.source;
  return output;
}

function fileFrom(file: FileDiagnostics): FileDiagnosticsOutput {
  return {
    file: file.file,
    fresh: file.fresh,
    version: file.version,
    diagnostics: file.diagnostics.map(diagnosticFrom),
  };
}

/** "src/a.ts:3:7 error 2322: Type ..." with continuation lines of long messages indented. */
function diagnosticLine(file: string, diagnostic: DiagnosticOutput): string {
  const code = diagnostic.code ? ` ${diagnostic.code}` : "";
  const message = diagnostic.message.trimEnd().replaceAll("\n", "\n  ");
  return `${file}:${diagnostic.line}:${diagnostic.column} ${diagnostic.severity}${code}: ${message}`;
}

function summary(counts: Record<SeverityName, number>, fileCount: number): string {
  const parts = SEVERITIES.filter((severity) => counts[severity] > 0).map((severity) =>
    counted(
      counts[severity],
      severity === "information" ? "info" : severity,
      severity === "information" ? "infos" : undefined,
    ),
  );
  return `${parts.join(", ")} in ${counted(fileCount, "file")}:`;
}

export function diagnosticsAnswer(
  answer: DiagnosticsAnswer,
  requestedFiles: string[],
): ToolAnswer<z.output<typeof output>> {
  return mergedDiagnosticsAnswer([answer], requestedFiles);
}

/** Answers of several runners (files grouped by language): files concatenated, status merged. */
export function mergedDiagnosticsAnswer(
  answers: readonly DiagnosticsAnswer[],
  requestedFiles: string[],
  missing: string[] = [],
): ToolAnswer<z.output<typeof output>> {
  const status =
    answers.length === 1 && missing.length === 0
      ? statusFrom(answers[0]!.status)
      : mergeStatuses(
          answers.map((answer) => statusFrom(answer.status)),
          missing,
        );
  const files = answers.flatMap((answer) => answer.files.map(fileFrom));
  const counts = { error: 0, warning: 0, information: 0, hint: 0 };
  for (const file of files) for (const diagnostic of file.diagnostics) counts[diagnostic.severity] += 1;

  const withProblems = files.filter((file) => file.diagnostics.length > 0);
  const stale = files.filter((file) => !file.fresh).map((file) => file.file);
  const staleNote =
    stale.length > 0
      ? `Not yet re-checked after their latest change (retry with a larger wait_ms): ${stale.join(", ")}`
      : undefined;

  let text: string;
  if (withProblems.length > 0) {
    text = lines(
      statusHeader(status),
      summary(counts, withProblems.length),
      ...withProblems.flatMap((file) => file.diagnostics.map((diagnostic) => diagnosticLine(file.file, diagnostic))),
      staleNote,
    );
  } else if (isNotReady(status)) {
    text = emptyAnswerText(status, "");
  } else if (staleNote) {
    text = lines("No diagnostics reported so far.", staleNote);
  } else {
    const scope = requestedFiles.length > 0 ? counted(requestedFiles.length, "file") : "the workspace";
    text = `No problems: no diagnostics in ${scope}.`;
  }
  return { text, structured: { ...status, files, counts } };
}

export const diagnosticsTool = defineTool({
  name: "diagnostics",
  title: "Diagnostics",
  description:
    "Compiler and linter errors and warnings from the language servers, for the given files or for the whole workspace, " +
    "each as file:line:column (1-based; column in Unicode code points) with severity, code and message. " +
    "After editing files, keep wait_ms (default 3000) so the answer reflects the new content; fresh=false marks files " +
    "whose diagnostics are older than their content. partial=true means a server was not ready, so an empty list proves nothing.",
  input,
  output,
  async run(args, call) {
    const files = args.files ?? [];
    const workspace = await call.workspace(args.workspace);
    // The runner may spend up to wait_ms waiting, so the deadline grows by that much.
    const options = { extraMs: args.wait_ms };
    if (files.length === 0) {
      const parts = await call.sendEach(
        workspace,
        call.languagesOf(workspace),
        (runner, callOptions, languages) =>
          runner.diagnostics(
            { workspace, files, waitMs: args.wait_ms, languages: languages.filter(Boolean) },
            callOptions,
          ),
        options,
      );
      const { answers, missing } = collectParts(parts);
      return mergedDiagnosticsAnswer(answers, files, missing);
    }
    // Files go to the runner of their own language, one call per language, in parallel.
    // A file no runner serves is reported as missing, like a failed group (alone, it is the error).
    const byLanguage = new Map<string, string[]>();
    const unserved: Array<{ languages: string[]; error: GatewayError }> = [];
    for (const file of files) {
      try {
        const language = call.languageOf(workspace, file);
        byLanguage.set(language, [...(byLanguage.get(language) ?? []), file]);
      } catch (error) {
        if (!(error instanceof GatewayError) || files.length === 1) throw error;
        unserved.push({ languages: [file], error });
      }
    }
    const parts = await Promise.all(
      [...byLanguage].map(async ([language, group]) => {
        try {
          const answer = await call.send(
            workspace,
            language,
            (runner, callOptions) => runner.diagnostics({ workspace, files: group, waitMs: args.wait_ms }, callOptions),
            options,
          );
          return { languages: [language], answer };
        } catch (error) {
          const gatewayError = toGatewayError(error);
          if (!gatewayError || byLanguage.size === 1) throw error;
          return { languages: [language || group[0]!], error: gatewayError };
        }
      }),
    );
    const { answers, missing } = collectParts([...parts, ...unserved]);
    return mergedDiagnosticsAnswer(answers, files, missing);
  },
});
