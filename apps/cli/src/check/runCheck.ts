// One `lspmesh check` run: choose the files, collect head (and base) diagnostics from the chosen
// source, anchor them to their lines, compare, and build the report. Everything started here is
// closed here, whatever happens.
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../usage.js";
import { type AnchoredFinding, anchorFindings, splitLines } from "./anchors.js";
import { exportBase } from "./baseCheckout.js";
import type { Cleanup } from "./cleanup.js";
import { type Collected, collectDiagnostics } from "./collect.js";
import { EmbeddedSource } from "./embeddedSource.js";
import type { Finding } from "./findings.js";
import { GatewayConnection } from "./gatewaySource.js";
import { Git } from "./git.js";
import type { CheckOptions } from "./options.js";
import type { Progress } from "./progress.js";
import { buildReport, type CheckedFile, type CheckReport, type IncompleteFile, type SkippedFile } from "./report.js";
import { CheckError, type DiagnosticsSource } from "./source.js";
import { selectTargets, type Targets } from "./targets.js";

export interface CheckIo {
  readStdin(): Promise<string>;
  progress: Progress;
  /** Language-server log lines (debug only). */
  log?: (line: string) => void;
  toolVersion: string;
  /** Where the run registers what it starts; closed when the run ends (and by a signal handler). */
  cleanup: Cleanup;
}

export interface CheckRun {
  report: CheckReport;
  /** The checked folder relative to the repository root ("" outside git). */
  pathPrefix: string;
}

export async function runCheck(options: CheckOptions, io: CheckIo): Promise<CheckRun> {
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  const { git, baseCommit, changedSince } = await checkedRevisions(options);
  const targets = await selectTargets(
    { dir: options.dir, files: options.files, changedSince, baseCommit },
    git,
    io.readStdin,
  );
  try {
    const sources = await openSources(options, io, git, baseCommit);
    const baseFileOf = (file: string) => targets.renames.get(file) ?? file;
    const inBase = baseCommit ? await git!.filesAt(baseCommit) : new Set<string>();
    const baseTargets = targets.files.map(baseFileOf).filter((file) => inBase.has(file));
    const collected = await collectBothSides(sources, targets.files, baseTargets, { started, deadline }, io.progress);
    const { checked, skipped, incomplete } = await compareFindings(
      { options, targets, baseCommit, sources, baseFileOf },
      collected,
    );
    const report = buildReport({
      toolVersion: io.toolVersion,
      mode: options.gateway ? "gateway" : "embedded",
      targets: targets.kind,
      ...(baseCommit ? { base: { ref: options.base!, commit: baseCommit } } : {}),
      failOn: options.failOn,
      includeHints: options.includeHints,
      allowIncomplete: options.allowIncomplete,
      servers: [...collected.head.servers, ...(collected.base?.servers ?? [])],
      files: checked,
      skipped,
      incomplete,
    });
    return { report, pathPrefix: git?.prefix ?? "" };
  } finally {
    await io.cleanup.close();
  }
}

/** The checked folder's repository, and --base and --changed-since resolved to their fork points. */
async function checkedRevisions(options: CheckOptions) {
  const info = await stat(options.dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`--dir '${options.dir}' is not a folder`);
  const git = await Git.open(options.dir);
  if (!git && (options.changedSince || options.base)) {
    throw new UsageError(`--changed-since and --base need a git checkout, and ${options.dir} is not inside one`);
  }
  const baseCommit = options.base ? await git!.forkPoint(options.base, "--base") : undefined;
  const changedSince =
    options.changedSince === undefined
      ? undefined
      : options.changedSince === options.base
        ? baseCommit
        : await git!.forkPoint(options.changedSince, "--changed-since");
  return { git, baseCommit, changedSince };
}

/** Where head (and base) diagnostics come from. */
interface CheckSources {
  head: DiagnosticsSource;
  /** Set when there is a base to compare with. */
  base: DiagnosticsSource | undefined;
  /** A base file's text, to anchor its findings to their lines. */
  readBase: (file: string) => Promise<string | undefined>;
}

/** A gateway's workspaces, or embedded language servers on this checkout (and an export of the base). */
async function openSources(
  options: CheckOptions,
  io: CheckIo,
  git: Git | undefined,
  baseCommit: string | undefined,
): Promise<CheckSources> {
  const { cleanup } = io;
  if (options.gateway) {
    const { url, token, workspace, baseWorkspace } = options.gateway;
    const connection = await GatewayConnection.open(url, token, io.toolVersion);
    cleanup.add(() => connection.close());
    if (!baseCommit) return { head: connection.source(workspace), base: undefined, readBase: noBase };
    return {
      head: connection.source(workspace),
      base: connection.source(baseWorkspace),
      readBase: (file) => git!.show(baseCommit, file),
    };
  }
  const head = await EmbeddedSource.open(options.dir, "head", io.log, options.languagesFile);
  cleanup.add(() => head.close());
  if (!baseCommit) return { head, base: undefined, readBase: noBase };
  const checkout = await exportBase(git!, baseCommit);
  cleanup.add(() => checkout.close());
  const base = await EmbeddedSource.open(checkout.dir, "base", io.log, options.languagesFile);
  cleanup.add(() => base.close());
  return { head, base, readBase: (file) => readText(join(checkout.dir, file)) };
}

async function noBase(): Promise<undefined> {
  return undefined;
}

interface CollectedSides {
  head: Collected;
  base: Collected | undefined;
}

/** Both sides at once under one deadline, with a progress line updated every second (ms since the epoch). */
async function collectBothSides(
  sources: CheckSources,
  headFiles: string[],
  baseFiles: string[],
  time: { started: number; deadline: number },
  progress: Progress,
): Promise<CollectedSides> {
  const done = { head: 0, base: 0 };
  const show = () => {
    const seconds = Math.round((Date.now() - time.started) / 1000);
    const baseText = sources.base ? ` · base ${done.base}/${baseFiles.length}` : "";
    progress.update(`lspmesh check: ${done.head}/${headFiles.length} files${baseText} · ${seconds}s`);
  };
  const collect = (source: DiagnosticsSource, files: string[], side: keyof typeof done) =>
    collectDiagnostics(source, files, {
      deadline: time.deadline,
      onProgress: (n) => {
        done[side] = n;
        show();
      },
    });
  const ticker = setInterval(show, 1000);
  ticker.unref();
  try {
    const [head, base] = await Promise.all([
      collect(sources.head, headFiles, "head"),
      sources.base ? collect(sources.base, baseFiles, "base") : undefined,
    ]);
    return { head, base };
  } finally {
    clearInterval(ticker);
    progress.done();
  }
}

/**
 * Each target's outcome: checked (head findings anchored, next to its base's), skipped or
 * incomplete. Throws a CheckError when the source lacks files of this checkout.
 */
async function compareFindings(
  run: {
    options: CheckOptions;
    targets: Targets;
    baseCommit: string | undefined;
    sources: CheckSources;
    baseFileOf: (file: string) => string;
  },
  collected: CollectedSides,
): Promise<{ checked: CheckedFile[]; skipped: SkippedFile[]; incomplete: IncompleteFile[] }> {
  const { options, targets, baseCommit, sources, baseFileOf } = run;
  const keep = (findings: Finding[]) =>
    options.includeHints ? findings : findings.filter((f) => f.severity !== "hint");
  const checked: CheckedFile[] = [];
  const skipped: SkippedFile[] = targets.notFiles.map((file) => ({
    file,
    reason: "not a regular file here (a folder, a submodule or a dangling link)",
  }));
  const incomplete: IncompleteFile[] = [];
  const missing: string[] = [];
  for (const file of targets.files) {
    const outcome = collected.head.outcomes.get(file)!;
    if (outcome.kind === "skipped") skipped.push({ file, reason: outcome.reason });
    if (outcome.kind === "missing") missing.push(outcome.reason);
    if (outcome.kind === "incomplete") incomplete.push({ file, side: "head", reason: outcome.reason });
    if (outcome.kind !== "checked") continue;

    const headFindings = keep(outcome.findings);
    const entry: CheckedFile = { file, head: await anchored(headFindings, () => readText(join(options.dir, file))) };
    if (baseCommit) {
      const baseFile = baseFileOf(file);
      const baseOutcome = collected.base!.outcomes.get(baseFile);
      entry.base = [];
      if (baseOutcome) entry.baseFile = baseFile;
      if (baseOutcome?.kind === "checked")
        entry.base = await anchored(keep(baseOutcome.findings), () => sources.readBase(baseFile));
      if (baseOutcome?.kind === "incomplete") incomplete.push({ file, side: "base", reason: baseOutcome.reason });
      if (baseOutcome?.kind === "missing") missing.push(`in the base workspace: ${baseOutcome.reason}`);
    }
    checked.push(entry);
  }
  if (missing.length > 0) {
    throw new CheckError(`${sources.head.description} lacks files of this checkout: ${missing.slice(0, 5).join("; ")}`);
  }
  return { checked, skipped, incomplete };
}

/** Findings anchored to their lines; the text is read only when there is something to anchor. */
async function anchored(findings: Finding[], text: () => Promise<string | undefined>): Promise<AnchoredFinding[]> {
  if (findings.length === 0) return [];
  return anchorFindings(findings, splitLines((await text()) ?? ""));
}

function readText(path: string): Promise<string | undefined> {
  return readFile(path, "utf8").catch(() => undefined);
}
