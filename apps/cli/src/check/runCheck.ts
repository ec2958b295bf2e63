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
import { selectTargets } from "./targets.js";

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
  const targets = await selectTargets(
    { dir: options.dir, files: options.files, changedSince, baseCommit },
    git,
    io.readStdin,
  );

  const cleanup = io.cleanup;
  try {
    let head: DiagnosticsSource;
    let base: DiagnosticsSource | undefined;
    let readBase: (file: string) => Promise<string | undefined> = async () => undefined;
    if (options.gateway) {
      const { url, token, workspace, baseWorkspace } = options.gateway;
      const connection = await GatewayConnection.open(url, token, io.toolVersion);
      cleanup.add(() => connection.close());
      head = connection.source(workspace);
      if (baseCommit) {
        base = connection.source(baseWorkspace);
        readBase = (file) => git!.show(baseCommit, file);
      }
    } else {
      const embedded = await EmbeddedSource.open(options.dir, "head", io.log, options.languagesFile);
      cleanup.add(() => embedded.close());
      head = embedded;
      if (baseCommit) {
        const checkout = await exportBase(git!, baseCommit);
        cleanup.add(() => checkout.close());
        const embeddedBase = await EmbeddedSource.open(checkout.dir, "base", io.log, options.languagesFile);
        cleanup.add(() => embeddedBase.close());
        base = embeddedBase;
        readBase = (file) => readText(join(checkout.dir, file));
      }
    }

    const baseFileOf = (file: string) => targets.renames.get(file) ?? file;
    const inBase = baseCommit ? await git!.filesAt(baseCommit) : new Set<string>();
    const baseTargets = targets.files.map(baseFileOf).filter((file) => inBase.has(file));

    const done = { head: 0, base: 0 };
    const show = () => {
      const seconds = Math.round((Date.now() - started) / 1000);
      const baseText = base ? ` · base ${done.base}/${baseTargets.length}` : "";
      io.progress.update(`lspmesh check: ${done.head}/${targets.files.length} files${baseText} · ${seconds}s`);
    };
    const ticker = setInterval(show, 1000);
    ticker.unref();
    let headCollected: Collected;
    let baseCollected: Collected | undefined;
    try {
      [headCollected, baseCollected] = await Promise.all([
        collectDiagnostics(head, targets.files, {
          deadline,
          onProgress: (n) => {
            done.head = n;
            show();
          },
        }),
        base
          ? collectDiagnostics(base, baseTargets, {
              deadline,
              onProgress: (n) => {
                done.base = n;
                show();
              },
            })
          : undefined,
      ]);
    } finally {
      clearInterval(ticker);
      io.progress.done();
    }

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
      const outcome = headCollected.outcomes.get(file)!;
      if (outcome.kind === "skipped") skipped.push({ file, reason: outcome.reason });
      if (outcome.kind === "missing") missing.push(outcome.reason);
      if (outcome.kind === "incomplete") incomplete.push({ file, side: "head", reason: outcome.reason });
      if (outcome.kind !== "checked") continue;

      const headFindings = keep(outcome.findings);
      const entry: CheckedFile = { file, head: await anchored(headFindings, () => readText(join(options.dir, file))) };
      if (baseCommit) {
        const baseFile = baseFileOf(file);
        const baseOutcome = baseCollected!.outcomes.get(baseFile);
        entry.base = [];
        if (baseOutcome) entry.baseFile = baseFile;
        if (baseOutcome?.kind === "checked")
          entry.base = await anchored(keep(baseOutcome.findings), () => readBase(baseFile));
        if (baseOutcome?.kind === "incomplete") incomplete.push({ file, side: "base", reason: baseOutcome.reason });
        if (baseOutcome?.kind === "missing") missing.push(`in the base workspace: ${baseOutcome.reason}`);
      }
      checked.push(entry);
    }
    if (missing.length > 0) {
      throw new CheckError(`${head.description} lacks files of this checkout: ${missing.slice(0, 5).join("; ")}`);
    }

    const report = buildReport({
      toolVersion: io.toolVersion,
      mode: options.gateway ? "gateway" : "embedded",
      targets: targets.kind,
      ...(baseCommit ? { base: { ref: options.base!, commit: baseCommit } } : {}),
      failOn: options.failOn,
      includeHints: options.includeHints,
      allowIncomplete: options.allowIncomplete,
      servers: [...headCollected.servers, ...(baseCollected?.servers ?? [])],
      files: checked,
      skipped,
      incomplete,
    });
    return { report, pathPrefix: git?.prefix ?? "" };
  } finally {
    await cleanup.close();
  }
}

/** Findings anchored to their lines; the text is read only when there is something to anchor. */
async function anchored(findings: Finding[], text: () => Promise<string | undefined>): Promise<AnchoredFinding[]> {
  if (findings.length === 0) return [];
  return anchorFindings(findings, splitLines((await text()) ?? ""));
}

function readText(path: string): Promise<string | undefined> {
  return readFile(path, "utf8").catch(() => undefined);
}
