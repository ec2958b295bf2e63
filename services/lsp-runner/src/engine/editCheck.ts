// check_edit and the delta of applied edits: what an edit changes in the diagnostics of the files
// it edits and of the files importing them. A check lays the edit over the warm server's documents
// as unsaved content (nothing touches the disk) while holding the session's OverlayGate, so no
// other caller's request or sync sees it, then restores the documents from disk.
import { pathToFileURL } from "node:url";
import { applyPatch, parsePatch, type StructuredPatch } from "diff";
import { RunnerError } from "../errors.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import type { WorkspacePaths } from "../workspace/workspacePaths.js";
import type { AnswerStatus, DiagnosticsAnswer, WorkspaceEdit, WorkspaceRef } from "./answers.js";
import {
  byStateAndPosition,
  compareDiagnostics,
  type DiagnosedText,
  type DiagnosticChange,
} from "./diagnosticDelta.js";
import type { DiagnosticsQueries } from "./diagnosticsQueries.js";
import { distinctNotes } from "./distinctNotes.js";
import type { DocumentContext, EngineContext } from "./engineContext.js";
import { findImporters, IMPORTERS_CAP, readsImportsOf } from "./importers.js";
import { applyTextEdits } from "./textEdits.js";

/** Budget of a check (diagnostics before and after), ms (default 15 000). */
export const CHECK_DEFAULT_WAIT_MS = 15_000;
/** Budget of the delta of an applied edit, ms (default 10 000). */
export const APPLIED_DELTA_DEFAULT_WAIT_MS = 10_000;

export interface DiagnosticsDelta {
  changes: DiagnosticChange[];
  editedFiles: string[];
  importerFiles: string[];
  importersNotChecked: number;
  partial: boolean;
  note: string;
}

export interface EditCheckQuery {
  ref: WorkspaceRef;
  edit?: WorkspaceEdit | undefined;
  patch?: string | undefined;
  waitMs: number;
  skipImporters: boolean;
  signal?: AbortSignal | undefined;
}

export interface EditCheckAnswer {
  status: AnswerStatus;
  delta: DiagnosticsDelta;
}

/** The files whose diagnostics are compared, and what the answer says about choosing them. */
export interface CheckedFiles {
  edited: string[];
  importers: string[];
  notChecked: number;
  notes: string[];
}

export class EditCheck {
  constructor(
    private readonly engine: EngineContext,
    private readonly diagnostics: DiagnosticsQueries,
  ) {}

  /** check_edit: the delta of `edit` (or `patch`) laid over the documents, never written. */
  async check(query: EditCheckQuery): Promise<EditCheckAnswer> {
    const paths = await this.engine.workspacePaths(query.ref);
    const proposed = await this.proposedTexts(query, paths);
    const contexts = [...proposed.keys()];
    const session = singleSession(contexts);
    const files = await this.filesToCheck(
      paths,
      session,
      contexts.map((context) => context.file.path),
      query.skipImporters,
    );
    if (session.language.unsavedSeenByImporters === false && files.importers.length > 0) {
      files.notes.push(
        `${session.serverName || session.language.id} checks the ${files.importers.length} file(s) that include the edited file against its saved content, not against the edit: their new problems are not shown; write the edit (apply_workspace_edit with delta) to see them`,
      );
    }
    const deadline = Date.now() + (query.waitMs || CHECK_DEFAULT_WAIT_MS);
    const before = await this.diagnosedTexts(query.ref, paths, session, files, deadline, 2, query.signal);
    const after = await session.exclusively(async () => {
      try {
        for (const [context, text] of proposed) {
          const uri = pathToFileURL(context.file.absolute).href;
          // Closed meanwhile (the open-document cap): opened again from disk, then laid over.
          if (!(await session.overlayDocument(uri, text))) {
            await this.engine.openDocument(query.ref, context.file.path, paths);
            await session.overlayDocument(uri, text);
          }
        }
        return await this.diagnosedTexts(query.ref, paths, session, files, deadline, 1, query.signal);
      } finally {
        await restore(session, contexts);
      }
    });
    return { status: after.status, delta: deltaOf(files, before, after) };
  }

  /**
   * The delta around an edit applied on disk (`apply`): diagnostics of `changedFiles` and their
   * importers before it, then after the servers were told. A file the edit renames (`renamed`,
   * old path → new) is compared before under its old path with after under its new one.
   */
  async aroundApply<T>(
    ref: WorkspaceRef,
    changedFiles: readonly string[],
    waitMs: number,
    apply: () => Promise<T>,
    signal?: AbortSignal,
    renamed: ReadonlyMap<string, string> = new Map(),
  ): Promise<{ result: T; delta: DiagnosticsDelta }> {
    const paths = await this.engine.workspacePaths(ref);
    const served = changedFiles.filter((file) => this.engine.options.languages.forFile(file) !== undefined);
    if (served.length === 0) {
      const result = await apply();
      if (changedFiles.length === 0) {
        // Only files created empty or deleted: nothing had diagnostics before and after.
        const note = "the edit changes no file's text (it creates or deletes files only): nothing to compare";
        return { result, delta: { ...emptyDelta([], note), partial: false } };
      }
      return { result, delta: emptyDelta(changedFiles, "no language server reads the changed files") };
    }
    // No document is opened for the session: the first file may be one the edit creates.
    const language = this.engine.options.languages.forFile(served[0]!)!.language;
    const session = await this.engine.options.sessions.get({ ...ref, root: paths.root }, language);
    const files = await this.filesToCheck(paths, session, served, false);
    const deadline = Date.now() + (waitMs || APPLIED_DELTA_DEFAULT_WAIT_MS);
    // Only files there before the edit have diagnostics before it (not the ones it creates).
    const existing = await existingFiles(paths, files);
    const before = await this.diagnosedTexts(ref, paths, session, existing, deadline, 2, signal);
    const result = await apply();
    const present = await existingFiles(paths, files, renamed);
    const after = await this.diagnosedTexts(ref, paths, session, present, deadline, 1, signal);
    const oldPaths = new Map([...renamed].map(([from, to]) => [to, from]));
    return { result, delta: deltaOf(present, before, after, (file) => oldPaths.get(file) ?? file) };
  }

  /** Each edited file's document and its text with the edit. */
  private async proposedTexts(query: EditCheckQuery, paths: WorkspacePaths): Promise<Map<DocumentContext, string>> {
    const proposed = new Map<DocumentContext, string>();
    // Several edits (or patch sections) of one file apply one after the other, as the applier does.
    const propose = (context: DocumentContext, change: (text: string) => string) => {
      const known = [...proposed.keys()].find((earlier) => earlier.file.path === context.file.path) ?? context;
      proposed.set(known, change(proposed.get(known) ?? known.document.text));
    };
    if (query.patch !== undefined && query.patch !== "") {
      for (const patch of parsedPatches(query.patch)) {
        const file = patchedFile(patch);
        const context = await this.engine.openDocument(query.ref, file, paths);
        propose(context, (current) => {
          const text = applyPatch(current, patch);
          if (text === false) {
            throw new RunnerError(
              "INVALID_ARGUMENT",
              `the patch does not apply to ${file}: the context lines of its hunk ${failingHunk(current, patch)} differ from the file; make the diff against the current content`,
            );
          }
          return text;
        });
      }
      return proposed;
    }
    const edit = query.edit;
    if (!edit || edit.files.length === 0)
      throw new RunnerError("INVALID_ARGUMENT", "give an edit (files with text edits) or a patch");
    if (edit.operations.length > 0) {
      throw new RunnerError(
        "INVALID_ARGUMENT",
        "check_edit checks text edits only; file operations (create, rename, delete) are applied with apply_workspace_edit or rename_file",
      );
    }
    for (const fileEdit of edit.files) {
      const context = await this.engine.openDocument(query.ref, fileEdit.file, paths);
      if (fileEdit.expectedSha256 && fileEdit.expectedSha256 !== context.document.hash) {
        throw new RunnerError(
          "STALE_EDIT",
          `${fileEdit.file} changed after the edit was computed (content hash differs); compute the edit again`,
        );
      }
      propose(context, (current) => applyTextEdits(current, fileEdit.edits, fileEdit.file));
    }
    return proposed;
  }

  private async filesToCheck(
    paths: WorkspacePaths,
    session: LanguageSession,
    edited: readonly string[],
    skipImporters: boolean,
  ): Promise<CheckedFiles> {
    if (skipImporters) return { edited: [...edited], importers: [], notChecked: 0, notes: [] };
    const extensions = new Set(Object.keys(session.language.extensions));
    const found = await findImporters(paths.root, edited, extensions);
    const notes: string[] = [];
    if (found.notChecked > 0) {
      notes.push(
        `${found.notChecked} more importing file(s) not checked (at most ${IMPORTERS_CAP} are); check them with diagnostics`,
      );
    }
    if (found.scanTruncated)
      notes.push("the workspace has more source files than are scanned for imports; some importers may be missing");
    const unread = edited.filter((file) => !readsImportsOf(file));
    if (unread.length > 0) {
      notes.push(
        `files that use ${unread.slice(0, 3).join(", ")}${unread.length > 3 ? ", …" : ""} were not looked for (imports are read in TypeScript/JavaScript, Python and C/C++ files): check them with diagnostics`,
      );
    }
    return { edited: [...edited], importers: found.files, notChecked: found.notChecked, notes };
  }

  /** Diagnostics of the files, with the lines their ranges refer to, within a share of the time left. */
  private async diagnosedTexts(
    ref: WorkspaceRef,
    paths: WorkspacePaths,
    session: LanguageSession,
    files: CheckedFiles,
    deadline: number,
    shares: number,
    signal: AbortSignal | undefined,
  ): Promise<DiagnosedAnswer> {
    const waitMs = Math.max(0, Math.floor((deadline - Date.now()) / shares));
    // No files is not "every file" (what a diagnostics request without files means).
    if (files.edited.length + files.importers.length === 0) {
      const answer = {
        status: this.engine.statusOf(session),
        files: [],
        epoch: 0,
        truncated: 0,
        truncatedAtLeast: false,
      };
      return { status: answer.status, texts: new Map(), stale: [], answer };
    }
    // In the workspace opened before: settling file changes here could wait for a sync that waits
    // for this check's exclusive hold (a deadlock).
    const answer = await this.diagnostics.diagnosticsIn(paths, {
      ref,
      files: [...files.edited, ...files.importers],
      waitMs,
      signal,
    });
    const texts = new Map<string, DiagnosedText>();
    for (const file of answer.files) {
      const resolved = await paths.resolveFile(file.file).catch(() => undefined);
      const document = resolved ? session.document(pathToFileURL(resolved.absolute).href) : undefined;
      texts.set(file.file, { diagnostics: file.diagnostics, lines: document?.lines ?? [] });
    }
    return { status: answer.status, texts, stale: answer.files.filter((f) => !f.fresh).map((f) => f.file), answer };
  }
}

export interface DiagnosedAnswer {
  status: AnswerStatus;
  texts: Map<string, DiagnosedText>;
  stale: string[];
  answer: DiagnosticsAnswer;
}

/** `nameBefore`: the path a file had before the edit (a renamed file's old path). */
export function deltaOf(
  files: CheckedFiles,
  before: DiagnosedAnswer,
  after: DiagnosedAnswer,
  nameBefore: (file: string) => string = (file) => file,
): DiagnosticsDelta {
  const changes: DiagnosticChange[] = [];
  // A file whose diagnostics before the edit did not arrive (a cold server's first, syntax-only
  // push) is not compared: its old problems would all read as new.
  const unknownBefore = new Set(before.stale);
  const notCompared: string[] = [];
  for (const file of [...files.edited, ...files.importers]) {
    if (unknownBefore.has(nameBefore(file))) {
      notCompared.push(file);
      continue;
    }
    const none: DiagnosedText = { diagnostics: [], lines: [] };
    const was = before.texts.get(nameBefore(file)) ?? none;
    changes.push(...compareDiagnostics(file, was, after.texts.get(file) ?? none));
  }
  const stale = [...new Set(after.stale)].filter((file) => !notCompared.includes(file));
  const notes = [...files.notes];
  if (notCompared.length > 0) {
    notes.push(
      `the diagnostics of ${listed(notCompared)} before the edit did not arrive in time, so their problems are not compared (none is called new or fixed); ask diagnostics for them, or raise wait_ms`,
    );
  }
  if (stale.length > 0) {
    notes.push(
      `the diagnostics of ${listed(stale)} after the edit did not arrive in time, so their part of the delta may be wrong; raise wait_ms`,
    );
  }
  for (const status of [before.status, after.status]) if (status.partial && status.note) notes.push(status.note);
  return {
    changes: changes.sort(byStateAndPosition),
    editedFiles: files.edited,
    importerFiles: files.importers,
    importersNotChecked: files.notChecked,
    partial: notes.length > 0,
    // Each reason once: the before and after statuses both name what the server lacks.
    note: distinctNotes(notes),
  };
}

/** Up to five file names, and how many more. */
function listed(files: readonly string[]): string {
  return `${files.slice(0, 5).join(", ")}${files.length > 5 ? ` and ${files.length - 5} more` : ""}`;
}

function emptyDelta(files: readonly string[], note: string): DiagnosticsDelta {
  return { changes: [], editedFiles: [...files], importerFiles: [], importersNotChecked: 0, partial: true, note };
}

function singleSession(contexts: readonly DocumentContext[]): LanguageSession {
  const sessions = [...new Set(contexts.map((context) => context.session))];
  if (sessions.length !== 1) {
    throw new RunnerError(
      "INVALID_ARGUMENT",
      `the edit spans files of ${sessions.map((s) => s.language.id).join(" and ")}; check the files of one language per call`,
    );
  }
  return sessions[0]!;
}

/** The documents back to the disk's content; a document that cannot be read again is closed (reopened from disk on next use). */
async function restore(session: LanguageSession, contexts: readonly DocumentContext[]): Promise<void> {
  for (const context of contexts) {
    const uri = pathToFileURL(context.file.absolute).href;
    const document = session.document(uri);
    if (!document) continue;
    try {
      const file = await context.paths.resolveFile(context.file.path);
      await session.syncDocument(file, document.languageId, { reread: true });
    } catch {
      await session.closeDocument(uri).catch(() => false);
    }
  }
}

/** The edited files still there after the edit: a renamed one under its new path. */
async function existingFiles(
  paths: WorkspacePaths,
  files: CheckedFiles,
  renamed: ReadonlyMap<string, string> = new Map(),
): Promise<CheckedFiles> {
  const exists = async (file: string) => (await paths.resolveFile(file).catch(() => undefined)) !== undefined;
  const edited: string[] = [];
  for (const file of files.edited) {
    const now = renamed.get(file) ?? file;
    if (!edited.includes(now) && (await exists(now))) edited.push(now);
  }
  return { ...files, edited };
}

function parsedPatches(text: string): StructuredPatch[] {
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(text);
  } catch (error) {
    throw new RunnerError("INVALID_ARGUMENT", `the patch is not a unified diff: ${(error as Error).message}`);
  }
  const withHunks = patches.filter((patch) => patch.hunks.length > 0);
  if (withHunks.length === 0)
    throw new RunnerError("INVALID_ARGUMENT", "the patch has no hunks; give a unified diff (diff -u, git diff)");
  return withHunks;
}

/** The first hunk of a patch that does not apply to `text`, as its header ("@@ -11,2 +11,2 @@"). */
function failingHunk(text: string, patch: StructuredPatch): string {
  const index = patch.hunks.findIndex(
    (_, i) => applyPatch(text, { ...patch, hunks: patch.hunks.slice(0, i + 1) }) === false,
  );
  const hunk = patch.hunks[Math.max(0, index)]!;
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
}

/** The workspace path a patch changes ("a/" and "b/" prefixes dropped); new and deleted files are refused. */
function patchedFile(patch: StructuredPatch): string {
  const strip = (name: string | undefined) => (name ?? "").replace(/\t.*$/, "").replace(/^[ab]\//, "");
  const oldName = strip(patch.oldFileName);
  const newName = strip(patch.newFileName);
  if (oldName === "/dev/null" || newName === "/dev/null") {
    throw new RunnerError(
      "INVALID_ARGUMENT",
      "check_edit checks changes to existing files; the patch creates or deletes one",
    );
  }
  if (oldName !== newName && oldName !== "" && newName !== "") {
    throw new RunnerError(
      "INVALID_ARGUMENT",
      `the patch renames ${oldName} to ${newName}; check_edit checks text changes only`,
    );
  }
  return newName || oldName;
}
