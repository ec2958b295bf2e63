// The check's result, independent of how diagnostics were collected and of the output format:
// per file, findings marked new / fixed / unchanged, plus skipped and incomplete files, and the
// exit code (which depends only on new findings at or above --fail-on, and on completeness).
import { type AnchoredFinding, fingerprints } from "./anchors.js";
import { compareWithBase } from "./baselineMatch.js";
import {
  atOrAbove,
  compareFindings,
  compareText,
  countBySeverity,
  type FailOn,
  type Finding,
  ruleIdOf,
  type SeverityCounts,
} from "./findings.js";

export type FindingState = "new" | "fixed" | "unchanged";

export interface ReportedFinding extends Finding {
  state: FindingState;
  ruleId: string;
  /** Stable across line shifts: hash of rule, message, line text and neighbours, plus occurrence. */
  fingerprint: string;
  /** Line of the same finding in the base (unchanged and fixed findings; `line` is the head's, except for fixed). */
  baseLine?: number;
}

export interface FileReport {
  file: string;
  /** The file's path in the base when it was renamed. */
  baseFile?: string;
  /** New and unchanged findings by position, then fixed ones (at their base positions). */
  findings: ReportedFinding[];
}

export interface SkippedFile {
  file: string;
  reason: string;
}

export interface IncompleteFile {
  file: string;
  /** Which checkout lacked fresh diagnostics. */
  side: "head" | "base";
  reason: string;
}

export type Outcome = "passed" | "failed" | "incomplete";

export interface CheckReport {
  version: 1;
  tool: { name: "lspmesh"; version: string };
  mode: "embedded" | "gateway";
  /** How the files were chosen: named, changed since a ref, or the whole workspace. */
  targets: "files" | "changed" | "workspace";
  base?: { ref: string; commit: string };
  failOn: FailOn;
  includeHints: boolean;
  /** Language servers that answered, e.g. "typescript". */
  servers: string[];
  counts: { new: SeverityCounts; fixed: SeverityCounts; unchanged: SeverityCounts };
  /** New findings at or above failOn: what fails the check. */
  failing: number;
  /** Every checked file, with or without findings, by path. */
  files: FileReport[];
  skipped: SkippedFile[];
  incomplete: IncompleteFile[];
  outcome: Outcome;
  /** 0 passed (or incomplete with --allow-incomplete), 1 failed or incomplete. 2 never appears here: it means no report. */
  exitCode: 0 | 1;
}

export interface CheckedFile {
  file: string;
  baseFile?: string;
  head: AnchoredFinding[];
  /** Base findings; undefined when there is no base to compare with. */
  base?: AnchoredFinding[];
}

export interface ReportInput {
  toolVersion: string;
  mode: CheckReport["mode"];
  targets: CheckReport["targets"];
  base?: CheckReport["base"];
  failOn: FailOn;
  includeHints: boolean;
  allowIncomplete: boolean;
  servers: string[];
  files: CheckedFile[];
  skipped: SkippedFile[];
  incomplete: IncompleteFile[];
}

export function buildReport(input: ReportInput): CheckReport {
  const files = [...input.files].sort((a, b) => compareText(a.file, b.file)).map(fileReport);
  const all = files.flatMap((file) => file.findings);
  const inState = (state: FindingState) => all.filter((finding) => finding.state === state);
  const failing = inState("new").filter((finding) => atOrAbove(finding.severity, input.failOn)).length;
  const incomplete = [...input.incomplete].sort((a, b) => compareText(a.file, b.file) || compareText(a.side, b.side));
  const outcome: Outcome = failing > 0 ? "failed" : incomplete.length > 0 ? "incomplete" : "passed";
  const exitCode = outcome === "passed" || (outcome === "incomplete" && input.allowIncomplete) ? 0 : 1;
  return {
    version: 1,
    tool: { name: "lspmesh", version: input.toolVersion },
    mode: input.mode,
    targets: input.targets,
    ...(input.base ? { base: input.base } : {}),
    failOn: input.failOn,
    includeHints: input.includeHints,
    servers: [...new Set(input.servers)].filter(Boolean).sort(compareText),
    counts: {
      new: countBySeverity(inState("new")),
      fixed: countBySeverity(inState("fixed")),
      unchanged: countBySeverity(inState("unchanged")),
    },
    failing,
    files,
    skipped: [...input.skipped].sort((a, b) => compareText(a.file, b.file)),
    incomplete,
    outcome,
    exitCode,
  };
}

function fileReport(checked: CheckedFile): FileReport {
  const report: FileReport = { file: checked.file, findings: [] };
  if (checked.baseFile && checked.baseFile !== checked.file) report.baseFile = checked.baseFile;
  const comparison = checked.base
    ? compareWithBase(checked.head, checked.base)
    : { new: checked.head, fixed: [], unchanged: [] };
  const baseLineOf = new Map(comparison.unchanged.map(({ head, base }) => [head, base.finding.line]));
  const newSet = new Set(comparison.new);
  const byPosition = (a: AnchoredFinding, b: AnchoredFinding) => compareFindings(a.finding, b.finding);
  const head = [...checked.head].sort(byPosition);
  const headPrints = fingerprints(head);
  head.forEach((anchored, index) => {
    const baseLine = baseLineOf.get(anchored);
    report.findings.push({
      ...reported(anchored, newSet.has(anchored) ? "new" : "unchanged", headPrints[index]!),
      ...(baseLine !== undefined ? { baseLine } : {}),
    });
  });
  const base = [...(checked.base ?? [])].sort(byPosition);
  const basePrints = new Map(fingerprints(base).map((print, index) => [base[index]!, print]));
  for (const anchored of [...comparison.fixed].sort(byPosition)) {
    const print = basePrints.get(anchored)!;
    report.findings.push({
      ...reported(anchored, "fixed", print),
      file: checked.file,
      baseLine: anchored.finding.line,
    });
  }
  return report;
}

function reported({ finding }: AnchoredFinding, state: FindingState, fingerprint: string): ReportedFinding {
  return { ...finding, state, ruleId: ruleIdOf(finding), fingerprint };
}
