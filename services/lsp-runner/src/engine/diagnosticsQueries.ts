// Diagnostics for files or the whole workspace, never older than the files' current content
// unless the answer says so. Pulled (`textDocument/diagnostic`) from servers that offer it,
// otherwise waited for as the server pushes them.

import { extname } from "node:path";
import { ErrorCodes, type Diagnostic as LspDiagnostic, ResponseError } from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import { diagnosticsSettleMs } from "../lsp/languages/languageServerConfig.js";
import type { StoredDiagnostics } from "../lsp/session/diagnosticsStore.js";
import { fromLspRange, type PositionEncoding } from "../lsp/session/positionEncoding.js";
import { canPullDiagnostics, pullDiagnostics } from "../lsp/session/pullDiagnostics.js";
import { workspaceRelativeText } from "../lsp/session/serverErrors.js";
import { listSourceFiles } from "../workspace/sourceFiles.js";
import type { WorkspacePaths } from "../workspace/workspacePaths.js";
import type { Diagnostic, DiagnosticsAnswer, FileDiagnostics, SkippedFile } from "./answers.js";
import type { DocumentContext, EngineContext } from "./engineContext.js";
import type { DiagnosticsQuery } from "./queries.js";

/** Files opened for a whole-workspace diagnostics request, at most (default 200). */
const WORKSPACE_DIAGNOSTICS_FILE_LIMIT = 200;

/** Source files listed to count what a whole-workspace check leaves out, at most (default 20 000). */
const WORKSPACE_FILES_LISTED = 20_000;

/** Files whose diagnostics are asked for at once (a server answers them in turn), default 4. */
const PULL_CONCURRENCY = 4;

/** Pause before a refused diagnostics pull is asked again, in ms (default 200). */
const PULL_RETRY_MS = 200;

/** Longest wait for a server's own new diagnostics before a file is checked again, in ms (default 1 000). */
const RECHECK_AFTER_MS = 1_000;

export class DiagnosticsQueries {
  constructor(private readonly engine: EngineContext) {}

  async diagnostics(query: DiagnosticsQuery): Promise<DiagnosticsAnswer> {
    return this.diagnosticsIn(await this.engine.workspacePaths(query.ref), query);
  }

  /**
   * diagnostics() in a workspace already opened (its pending file changes settled): for a caller
   * holding a session exclusively (check_edit), which must not wait for file changes that wait
   * for the session.
   */
  async diagnosticsIn(
    paths: WorkspacePaths,
    { ref, files, waitMs, signal, onlyLanguages = [] }: DiagnosticsQuery,
  ): Promise<DiagnosticsAnswer> {
    let targets = files;
    const notes: string[] = [];
    let truncated = 0;
    let truncatedAtLeast = false;
    if (targets.length === 0) {
      const registry = this.engine.options.languages;
      const wanted =
        onlyLanguages.length > 0
          ? await Promise.all(onlyLanguages.map((id) => this.engine.pickWorkspaceLanguage(paths, id)))
          : registry.languages;
      const listed = await listSourceFiles(
        paths.root,
        new Set(wanted.flatMap((language) => Object.keys(language.extensions))),
        WORKSPACE_FILES_LISTED,
      );
      // Files of languages whose server is not installed here are not checked, and said to be.
      const installed = new Set(registry.installed().map((language) => language.id));
      const served = new Set(
        wanted.filter((language) => installed.has(language.id)).flatMap((language) => Object.keys(language.extensions)),
      );
      const servedFiles = listed.files.filter((file) => served.has(extname(file).toLowerCase()));
      const unserved = listed.files.filter((file) => !served.has(extname(file).toLowerCase()));
      targets = servedFiles.slice(0, WORKSPACE_DIAGNOSTICS_FILE_LIMIT);
      truncated = servedFiles.length - targets.length;
      truncatedAtLeast = listed.truncated;
      if (truncated > 0 || truncatedAtLeast) {
        notes.push(
          `${truncated}${truncatedAtLeast ? " or more" : ""} more source file(s) not checked: a whole-workspace check covers the first ${WORKSPACE_DIAGNOSTICS_FILE_LIMIT}; name files to check others`,
        );
      }
      if (unserved.length > 0) {
        const kinds = [...new Set(unserved.map((file) => extname(file).toLowerCase()))].join(", ");
        notes.push(
          `${unserved.length} ${kinds} file(s) not checked: no language server for them is installed on this runner`,
        );
      }
    }
    // In a whole-workspace check one file that cannot be checked (binary, too large, its server
    // failing) is reported, not fatal to the rest. Named files answer with their own error, so a
    // caller (lspmesh check) can say exactly which file and why.
    const opened = await Promise.allSettled(targets.map((file) => this.engine.openDocument(ref, file, paths)));
    const contexts: DocumentContext[] = [];
    const skipped: SkippedFile[] = [];
    for (const [index, outcome] of opened.entries()) {
      if (outcome.status === "fulfilled") contexts.push(outcome.value);
      else if (files.length > 0 || !(outcome.reason instanceof RunnerError)) throw outcome.reason;
      // The advice to name another file is for a caller who named this one: a whole-workspace check named none.
      else skipped.push({ file: targets[index]!, reason: outcome.reason.message.replace(/; name a source file$/, "") });
    }
    if (contexts.length === 0 && opened[0]?.status === "rejected") throw opened[0].reason;
    if (skipped.length > 0) notes.push(skippedNote(skipped));
    const sessions = [...new Set(contexts.map((c) => c.session))];
    notes.push(...readAloneNotes(contexts));
    const deadline = Date.now() + waitMs;
    // Waiting for pushes costs nothing; pulls make the server work, so a few at a time.
    const pullSlot = concurrencyLimit(PULL_CONCURRENCY);
    const checked = await Promise.all(
      contexts.map((context) =>
        canPullDiagnostics(context.session)
          ? pullSlot(() => this.fileDiagnostics(context, deadline, signal))
          : this.fileDiagnostics(context, deadline, signal),
      ),
    );
    // State once the files were checked (a server cold when asked may be ready by then): not ready, partial.
    const status = this.engine.combinedStatus(sessions);
    notes.push(...sessions.flatMap((session) => this.engine.incompleteNotes(session, false)));
    const results = checked.map(({ pullFailure: _, ...result }) => result);
    const stale = results.filter((r) => !r.fresh).map((r) => r.file);
    const refused = checked.find((r) => r.pullFailure !== undefined);
    if (stale.length > 0) {
      status.partial = true;
      const named = `${stale.slice(0, 5).join(", ")}${stale.length > 5 ? ` and ${stale.length - 5} more file(s)` : ""}`;
      status.note = [
        `no diagnostics newer than the current content of ${named} (and of the workspace files they depend on) arrived within ${waitMs} ms; what is shown for them is older and may be outdated (the server may still be checking); raise wait_ms`,
        refused ? `the server refused to check ${refused.file}: ${refused.pullFailure}` : "",
        status.note,
      ]
        .filter(Boolean)
        .join("; ");
    }
    if (notes.length > 0) {
      status.partial = true;
      status.note = [...notes, status.note].filter(Boolean).join("; ");
    }
    if (skipped.length > 0) status.skipped = skipped;
    return {
      status,
      files: results,
      epoch: sessions.reduce((max, s) => Math.max(max, s.diagnostics.epoch), 0),
      truncated,
      truncatedAtLeast,
    };
  }

  /**
   * Fresh diagnostics were recorded after the document's content was synced from disk and after
   * the last workspace change the server was told of, for the document's current version.
   * Anything else is returned marked not fresh, with the version and hash it belongs to.
   */
  private async fileDiagnostics(
    context: DocumentContext,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<FileDiagnostics & { pullFailure?: string }> {
    const { session } = context;
    let { document } = context;
    const store = session.diagnostics;
    let after = Math.max(document.syncedAt, store.changedAt);
    let latest: StoredDiagnostics | undefined;
    const pulls = canPullDiagnostics(session);
    if (!pulls) {
      latest = await this.waitForPush(context, after, recheckAt(deadline), signal);
      // Checked before, but nothing newer came: the server may be leaving diagnostics that did
      // not change unannounced. Have it check the file again (reopen) and wait for the rest.
      const recheck = !latest && store.get(document.uri) !== undefined && deadline - Date.now() > 0 && !signal?.aborted;
      const reopened = recheck ? await session.recheckDocument(document.uri) : undefined;
      if (reopened) {
        document = reopened;
        after = Math.max(document.syncedAt, store.changedAt);
      }
      // Lets what came settle (syntax and semantic results come separately), or waits for the rest.
      latest = await this.waitForPush(context, after, deadline, signal);
    }
    let pulled: StoredDiagnostics | undefined;
    let pullFailure: string | undefined;
    const remaining = deadline - Date.now();
    // Servers may register pull diagnostics just after starting (pyright): asked now if so.
    const pullsNow = canPullDiagnostics(session);
    if (pullsNow && remaining > 0 && !signal?.aborted) {
      const until = AbortSignal.timeout(remaining);
      const pullSignal = signal ? AbortSignal.any([signal, until]) : until;
      // A server may refuse a check for a moment (tsserver while it updates the file's project):
      // asked again until the deadline; the last refusal is named if no answer came.
      for (;;) {
        try {
          pulled = await pullDiagnostics(session, document, pullSignal);
          break;
        } catch (error) {
          // The wait ran out (or the caller went): not the server refusing; an earlier refusal stays named.
          if (pullSignal.aborted) break;
          pullFailure = (error as Error).message;
          if (!mayPassSoon(error)) break;
          await new Promise((resolve) => setTimeout(resolve, PULL_RETRY_MS));
          if (pullSignal.aborted) break;
        }
      }
    }
    // Where the server can be asked, only what it answered when asked is complete: what it pushed
    // may be a first, syntax-only result. Otherwise pushed results that settled count.
    // A check asked of the server for this very content stays complete when pushes follow it
    // (pyright keeps publishing): a later push is no reason to call the file unchecked.
    const earlier = store.pulledOf(document.uri);
    const current =
      earlier?.sequence !== undefined &&
      earlier.sequence > after &&
      earlier.version === document.version &&
      earlier.contentSha256 === document.hash
        ? earlier
        : undefined;
    latest = pulled ?? (pullsNow ? (current ?? newest(earlier, store.get(document.uri))) : latest);
    latest ??= store.get(document.uri);
    const fresh =
      latest !== undefined &&
      (latest.pulled === true || !pullsNow) &&
      latest.sequence > after &&
      latest.version === document.version &&
      latest.contentSha256 === document.hash;
    return {
      file: context.file.path,
      version: latest?.version ?? document.version,
      contentSha256: latest ? latest.contentSha256 : document.hash,
      fresh,
      // Ranges of an older version are converted on the current lines: marked not fresh above.
      diagnostics: (latest?.diagnostics ?? []).map((d) =>
        convertDiagnostic(d, document.lines, session.encoding, session.root),
      ),
      ...(fresh || pullFailure === undefined ? {} : { pullFailure }),
    };
  }

  /** Waits until `until` for pushed diagnostics recorded after `after`, or for pull diagnostics to be registered. */
  private async waitForPush(
    { session, document }: DocumentContext,
    after: number,
    until: number,
    signal?: AbortSignal,
  ): Promise<StoredDiagnostics | undefined> {
    // Servers may register pull diagnostics just after starting (pyright): stop waiting for a push then.
    const registered = new AbortController();
    const stop = session.registrations.onChange(() => session.pullsDiagnostics && registered.abort());
    const stopped = signal ? AbortSignal.any([signal, registered.signal]) : registered.signal;
    try {
      // Not while a check (check_edit) has unsaved content laid over the documents: what the server
      // pushes then is the check's (and is dropped when it ends), not this file's.
      return await session.inUse(() =>
        session.gate.shared(() =>
          session.diagnostics.waitForNewer(
            document.uri,
            after,
            Math.max(0, until - Date.now()),
            diagnosticsSettleMs(session.language),
            stopped,
          ),
        ),
      );
    } finally {
      stop();
    }
  }
}

/**
 * When a file's pushed diagnostics are still older than the workspace, the time to ask the
 * server to check it again: after a third of the wait, at most RECHECK_AFTER_MS (1 s) in, so that
 * a server's own republishing usually comes first and the recheck still has time to answer.
 */
function recheckAt(deadline: number): number {
  const now = Date.now();
  return now + Math.min(RECHECK_AFTER_MS, Math.max(0, deadline - now) / 3);
}

/** An LSP diagnostic in lspmesh positions (1-based line, code-point column), paths in its message workspace-relative. */
export function convertDiagnostic(
  diagnostic: LspDiagnostic,
  lines: readonly string[],
  encoding: PositionEncoding,
  root: string,
): Diagnostic {
  return {
    range: fromLspRange(lines, diagnostic.range, encoding),
    severity: diagnostic.severity ?? 1,
    code: diagnostic.code === undefined ? "" : String(diagnostic.code),
    source: diagnostic.source ?? "",
    message: workspaceRelativeText(diagnostic.message, root),
  };
}

/** Whether a refused pull may succeed if asked again (not: the server lacks the method, or rejects the request). */
function mayPassSoon(error: unknown): boolean {
  const cause = error instanceof RunnerError ? error.cause : error;
  if (!(cause instanceof ResponseError)) return !(error instanceof RunnerError);
  return cause.code !== ErrorCodes.MethodNotFound && cause.code !== ErrorCodes.InvalidParams;
}

/** The later of two records (by sequence). */
function newest(a: StoredDiagnostics | undefined, b: StoredDiagnostics | undefined): StoredDiagnostics | undefined {
  if (!a || !b) return a ?? b;
  return a.sequence >= b.sequence ? a : b;
}

/** Runs the functions given to it at most `limit` at a time, in the order given. */
function concurrencyLimit(limit: number): <R>(work: () => Promise<R>) => Promise<R> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (work) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** The files passed over, the first five with why. */
function skippedNote(skipped: readonly SkippedFile[]): string {
  const listed = skipped.slice(0, 5).map((skip) => `${skip.file} (${skip.reason})`);
  const more = skipped.length > 5 ? `, and ${skipped.length - 5} more` : "";
  return `${skipped.length} file(s) skipped: ${listed.join("; ")}${more}`;
}

/**
 * What the server says about files it reads alone (a Go file of a module below the root) may miss
 * or mislead: one file's own note, or a count naming the first few.
 */
function readAloneNotes(contexts: readonly DocumentContext[]): string[] {
  const alone = contexts.filter((context) => context.fileNote);
  if (alone.length <= 1) return alone.map((context) => context.fileNote!);
  const listed = alone.slice(0, 3).map((context) => context.file.path);
  const more = alone.length > 3 ? `, and ${alone.length - 3} more` : "";
  return [
    `${alone.length} files (${listed.join(", ")}${more}) are read alone by their language server (${alone[0]!.fileNote})`,
  ];
}
