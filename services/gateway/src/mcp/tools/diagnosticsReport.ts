// The diagnostics answer sized for a model: a summary line with the true counts, then one line per
// diagnostic at or above the asked severity, a page at a time (limit/offset) and never more text
// than DIAGNOSTICS_TEXT_BUDGET. Clean files are counted, not listed.
import type { DiagnosticsAnswer, FileDiagnostics } from "@lspmesh/proto";
import { z } from "zod";
import type { ToolAnswer } from "../defineTool.js";
import { counted, emptyAnswerText, lines, statusHeader } from "../text.js";
import {
  type DiagnosticOutput,
  diagnosticFrom,
  diagnosticLine,
  diagnosticOutput,
  SEVERITIES,
  type SeverityName,
} from "../toolSupport/diagnosticOutput.js";
import { type AnswerStatusOutput, answerStatusShape, statusOfAnswers } from "../toolSupport/shared.js";

/** Most characters of text in one diagnostics answer (about 4 000 tokens); the rest is paged. */
export const DIAGNOSTICS_TEXT_BUDGET = 16_000;
/** Files named in the "not yet re-checked" line, at most. */
const STALE_NAMED = 10;

export { SEVERITIES, type SeverityName } from "../toolSupport/diagnosticOutput.js";

const fileDiagnosticsOutput = z.object({
  file: z.string(),
  fresh: z.boolean().describe("True when the diagnostics belong to the file's current content."),
  version: z.number().int().describe("Document version the diagnostics belong to."),
  diagnostics: z.array(diagnosticOutput).describe("This page's diagnostics of the file, at or above severity."),
});

type FileDiagnosticsOutput = z.output<typeof fileDiagnosticsOutput>;

const severityCounts = z.object({
  error: z.number().int(),
  warning: z.number().int(),
  information: z.number().int(),
  hint: z.number().int(),
});

type SeverityCounts = z.output<typeof severityCounts>;

export const diagnosticsOutput = z.object({
  ...answerStatusShape,
  files: z
    .array(fileDiagnosticsOutput)
    .describe("Files with diagnostics on this page; for named files, every named file (clean ones with none)."),
  counts: severityCounts.describe("Every diagnostic found in the checked files, by severity, whatever the filter."),
  total: z.number().int().describe("Diagnostics at or above severity: what paging walks through."),
  offset: z.number().int().describe("Index of this page's first diagnostic."),
  next_offset: z.number().int().optional().describe("Pass as offset for the next page; absent on the last page."),
  files_checked: z.number().int().describe("Files whose diagnostics were looked at."),
  files_with_problems: z.number().int().describe("Checked files with at least one diagnostic at or above severity."),
  files_clean: z
    .number()
    .int()
    .describe("Checked files with none at or above severity, and fresh (not counted: files not re-checked yet)."),
  not_fresh: z
    .array(z.string())
    .describe(`Files whose diagnostics are older than their content (at most ${STALE_NAMED} named).`),
  not_fresh_count: z.number().int().describe("How many files are not fresh."),
  unchecked_files: z
    .number()
    .int()
    .describe("Whole-workspace calls: source files left out by the per-call file cap (name files to check them)."),
  unchecked_at_least: z.boolean().describe("unchecked_files is a lower bound (the workspace listing stopped)."),
});

export type DiagnosticsOutput = z.output<typeof diagnosticsOutput>;

export interface DiagnosticsView {
  /** Lowest severity listed. */
  severity: SeverityName;
  limit: number;
  offset: number;
  /** Files the caller named; empty for the whole workspace. */
  requestedFiles: readonly string[];
}

function severityLabel(severity: SeverityName, count: number): string {
  return severity === "information" ? counted(count, "info", "infos") : counted(count, severity);
}

/** "errors and warnings", "errors only", "any severity". */
function filterPhrase(severity: SeverityName): string {
  const rank = SEVERITIES.indexOf(severity);
  if (rank === 0) return "errors";
  if (rank === SEVERITIES.length - 1) return "diagnostics";
  return `${SEVERITIES.slice(0, rank).join("s, ")}s or ${severity}s`.replace("informations", "infos");
}

export function diagnosticsAnswer(answer: DiagnosticsAnswer, view: DiagnosticsView): ToolAnswer<DiagnosticsOutput> {
  return mergedDiagnosticsAnswer([answer], view);
}

/** Answers of several runners (files grouped by language): files concatenated, status merged. */
export function mergedDiagnosticsAnswer(
  answers: readonly DiagnosticsAnswer[],
  view: DiagnosticsView,
  missing: string[] = [],
): ToolAnswer<DiagnosticsOutput> {
  const status = statusOfAnswers(answers, missing);
  const tally = tallyOf(
    answers.flatMap((answer) => answer.files),
    view.severity,
  );
  const page = pageOf(tally.listed, view);
  const structured: DiagnosticsOutput = {
    ...status,
    files: filesOutput(tally.checked, page.entries, view),
    counts: tally.counts,
    total: tally.listed.length,
    offset: view.offset,
    files_checked: tally.checked.length,
    files_with_problems: tally.withProblems.size,
    files_clean: tally.clean,
    not_fresh: tally.stale.slice(0, STALE_NAMED),
    not_fresh_count: tally.stale.length,
    unchecked_files: answers.reduce((sum, answer) => sum + answer.truncated, 0),
    unchecked_at_least: answers.some((answer) => answer.truncatedAtLeast),
  };
  if (page.nextOffset !== undefined) structured.next_offset = page.nextOffset;
  return { text: diagnosticsText(status, view, tally, page), structured };
}

/** A diagnostic at or above the asked severity, with its file. */
interface Listed {
  file: FileDiagnostics;
  diagnostic: DiagnosticOutput;
}

/** What the checked files hold, measured against the asked severity. */
interface Tally {
  checked: readonly FileDiagnostics[];
  /** Every diagnostic, by severity. */
  counts: SeverityCounts;
  /** The diagnostics at or above the severity, in file order: what paging walks through. */
  listed: Listed[];
  withProblems: Set<string>;
  /** Fresh files without a listed diagnostic. */
  clean: number;
  /** Files not fresh (their diagnostics are older than their content) without a listed diagnostic. */
  staleClean: number;
  /** Files not fresh. */
  stale: string[];
}

function tallyOf(checked: readonly FileDiagnostics[], severity: SeverityName): Tally {
  const rank = SEVERITIES.indexOf(severity);
  const counts: SeverityCounts = { error: 0, warning: 0, information: 0, hint: 0 };
  const listed: Listed[] = [];
  const withProblems = new Set<string>();
  for (const file of checked) {
    for (const diagnostic of file.diagnostics.map(diagnosticFrom)) {
      counts[diagnostic.severity] += 1;
      if (SEVERITIES.indexOf(diagnostic.severity) > rank) continue;
      listed.push({ file, diagnostic });
      withProblems.add(file.file);
    }
  }
  const unlisted = checked.filter((file) => !withProblems.has(file.file));
  return {
    checked,
    counts,
    listed,
    withProblems,
    clean: unlisted.filter((file) => file.fresh).length,
    staleClean: unlisted.filter((file) => !file.fresh).length,
    stale: checked.filter((file) => !file.fresh).map((file) => file.file),
  };
}

/** One page of the listed diagnostics and its text lines. */
interface Page {
  entries: Listed[];
  lines: string[];
  nextOffset: number | undefined;
}

/** At most `limit` diagnostics from `offset`, and no more text than the budget allows. */
function pageOf(listed: readonly Listed[], view: DiagnosticsView): Page {
  const entries: Listed[] = [];
  const pageLines: string[] = [];
  let textSize = 0;
  for (const entry of listed.slice(view.offset, view.offset + view.limit)) {
    const line = diagnosticLine(entry.file.file, entry.diagnostic);
    if (entries.length > 0 && textSize + line.length + 1 > DIAGNOSTICS_TEXT_BUDGET - 2_000) break;
    entries.push(entry);
    pageLines.push(line);
    textSize += line.length + 1;
  }
  const end = view.offset + entries.length;
  return { entries, lines: pageLines, nextOffset: end < listed.length ? end : undefined };
}

/** The page's diagnostics by file; named files are all listed, clean ones with none. */
function filesOutput(
  checked: readonly FileDiagnostics[],
  page: readonly Listed[],
  view: DiagnosticsView,
): FileDiagnosticsOutput[] {
  const byFile = new Map<string, FileDiagnosticsOutput>();
  const fileOutput = (file: FileDiagnostics) => {
    let output = byFile.get(file.file);
    if (!output) {
      output = { file: file.file, fresh: file.fresh, version: file.version, diagnostics: [] };
      byFile.set(file.file, output);
    }
    return output;
  };
  if (view.requestedFiles.length > 0) for (const file of checked) fileOutput(file);
  for (const { file, diagnostic } of page) fileOutput(file).diagnostics.push(diagnostic);
  return [...byFile.values()];
}

function diagnosticsText(status: AnswerStatusOutput, view: DiagnosticsView, tally: Tally, page: Page): string {
  const hiddenNote = hiddenSeveritiesNote(tally.counts, view.severity);
  const staleNote =
    tally.stale.length > 0
      ? `Not yet re-checked after their latest change (retry with a larger wait_ms): ${tally.stale.slice(0, STALE_NAMED).join(", ")}${tally.stale.length > STALE_NAMED ? ` and ${tally.stale.length - STALE_NAMED} more` : ""}`
      : undefined;
  if (tally.listed.length > 0) {
    const pageNote =
      page.nextOffset !== undefined || view.offset > 0
        ? `Showing ${view.offset + 1}-${view.offset + page.entries.length} of ${tally.listed.length}${page.nextOffset !== undefined ? `; call again with offset: ${page.nextOffset} for more` : ""}.`
        : undefined;
    return lines(
      statusHeader(status),
      summaryLine(tally, view.severity, hiddenNote),
      ...page.lines,
      pageNote,
      staleNote,
    );
  }
  if (status.state !== "ready" && tally.stale.length === 0) return emptyAnswerText(status, "");
  if (staleNote) return lines(statusHeader(status), "No diagnostics reported so far.", staleNote);
  // Ready: a partial answer (files left unchecked, skipped) says why in its header.
  const scope = view.requestedFiles.length > 0 ? "file" : "checked file";
  return lines(
    statusHeader(status),
    `No problems: no ${filterPhrase(view.severity)} in ${counted(tally.checked.length, scope)}${hiddenNote ? `; ${hiddenNote}` : ""}.`,
  );
}

/** "2 errors, 1 warning in 2 files; 5 files clean; …". */
function summaryLine(tally: Tally, severity: SeverityName, hiddenNote: string | undefined): string {
  const rank = SEVERITIES.indexOf(severity);
  const shown = SEVERITIES.filter((listed, index) => index <= rank && tally.counts[listed] > 0);
  const parts = [
    `${shown.map((listed) => severityLabel(listed, tally.counts[listed])).join(", ")} in ${counted(tally.withProblems.size, "file")}`,
    `${counted(tally.clean, "file")} clean`,
    tally.staleClean > 0 ? `${counted(tally.staleClean, "file")} not checked again yet` : undefined,
    hiddenNote,
  ];
  return `${parts.filter(Boolean).join("; ")}.`;
}

/** Which severities below the asked one were found, and how to see them; undefined when none. */
function hiddenSeveritiesNote(counts: SeverityCounts, severity: SeverityName): string | undefined {
  const rank = SEVERITIES.indexOf(severity);
  const hidden = SEVERITIES.filter((below, index) => index > rank && counts[below] > 0);
  if (hidden.length === 0) return undefined;
  return `${hidden.map((below) => severityLabel(below, counts[below])).join(", ")} not shown (severity: "${hidden.at(-1)}" includes them)`;
}
