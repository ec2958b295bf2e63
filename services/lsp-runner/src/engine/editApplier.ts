// Applies an lspmesh WorkspaceEdit to the files on disk, safely: every path stays inside the
// workspace, every file still has the content (hash) and version the edit was computed against,
// and the whole file set changes or nothing does, across a crash too (EditJournal). Afterwards the
// language servers are told.

import { chmod, link, lstat, mkdir, readlink, realpath, rename, unlink, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import {
  DidChangeWatchedFilesNotification,
  DidDeleteFilesNotification,
  DidRenameFilesNotification,
  FileChangeType,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import { decodeDocument, sha256 } from "../lsp/documents/textDocument.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { statOf } from "../workspace/metadata.js";
import { folderOf, PinnedFolders } from "../workspace/pinnedFolder.js";
import { pathError, type ResolvedFile, type WorkspacePaths } from "../workspace/workspacePaths.js";
import type { FileEdit, WorkspaceEdit, WorkspaceRef } from "./answers.js";
import { backUp, EditJournal, type JournalEntry } from "./editJournal.js";
import type { EngineContext } from "./engineContext.js";
import { applyTextEdits } from "./textEdits.js";

const BOM = "\uFEFF";

/** One file's planned content change. */
interface PlannedWrite {
  path: string;
  absolute: string;
  /** Bytes on disk before; undefined for a file this edit creates. */
  before: Buffer | undefined;
  text: string;
  bom: boolean;
  mode: number | undefined;
}

interface PlannedMove {
  kind: "rename" | "delete";
  path: string;
  absolute: string;
  newPath: string;
  newAbsolute: string;
  missingFolders: readonly string[];
}

/** What an applied edit changed, as workspace-relative paths. */
export interface AppliedChanges {
  created: string[];
  changed: string[];
  renamed: Array<{ from: string; to: string }>;
  deleted: string[];
}

export class EditApplier {
  /** One apply at a time per workspace root. */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly engine: EngineContext) {}

  async apply(ref: WorkspaceRef, edit: WorkspaceEdit): Promise<AppliedChanges> {
    const paths = await this.engine.workspacePaths(ref);
    const previous = this.locks.get(paths.root) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(() => this.applyLocked(ref, paths, edit));
    this.locks.set(paths.root, run);
    try {
      return await run;
    } finally {
      if (this.locks.get(paths.root) === run) this.locks.delete(paths.root);
    }
  }

  private async applyLocked(ref: WorkspaceRef, paths: WorkspacePaths, edit: WorkspaceEdit): Promise<AppliedChanges> {
    // Every file the edit reads or writes is reached through its pinned folder: a folder swapped
    // for a symlink out of the workspace meanwhile is refused, not written through.
    const folders = new PinnedFolders(paths.root);
    try {
      return await this.applyPinned(ref, paths, folders, edit);
    } finally {
      await folders.close();
    }
  }

  private async applyPinned(
    ref: WorkspaceRef,
    paths: WorkspacePaths,
    folders: PinnedFolders,
    edit: WorkspaceEdit,
  ): Promise<AppliedChanges> {
    const relativeTo = (absolute: string) => relative(paths.root, absolute).split(sep).join("/");
    const scope: EditScope = { paths, folders, relativeTo, pinned: (absolute) => folders.pathOf(relativeTo(absolute)) };
    const sessions = await this.engine.options.sessions.sessionsOf(ref.tenant, ref.workspace);
    const plan = await planEdit(scope, sessions, edit, this.engine.options.allowGitWrites ?? false);
    await commitEdit(scope, plan);
    const applied = appliedChanges(plan);
    await this.tellServers(paths, sessions, plan.writes, plan.moves);
    return applied;
  }

  /**
   * Open documents get didChange (or didClose when moved away); every change is announced as
   * workspace/didChangeWatchedFiles, and renames and deletions as workspace/didRenameFiles and
   * workspace/didDeleteFiles where the server asked for them.
   */
  private async tellServers(
    paths: WorkspacePaths,
    sessions: LanguageSession[],
    writes: Map<string, PlannedWrite>,
    moves: PlannedMove[],
  ): Promise<void> {
    const uri = (absolute: string) => pathToFileURL(absolute).href;
    const written = [...writes.values()];
    const changes = [
      ...written.map((w) => ({
        uri: uri(w.absolute),
        type: w.before === undefined ? FileChangeType.Created : FileChangeType.Changed,
      })),
      ...moves.flatMap((m) => [
        { uri: uri(m.absolute), type: FileChangeType.Deleted },
        ...(m.kind === "rename" ? [{ uri: uri(m.newAbsolute), type: FileChangeType.Created }] : []),
      ]),
    ];
    const renames = moves
      .filter((m) => m.kind === "rename")
      .map((m) => ({ oldUri: uri(m.absolute), newUri: uri(m.newAbsolute) }));
    const deletes = moves.filter((m) => m.kind === "delete").map((m) => ({ uri: uri(m.absolute) }));
    await Promise.all(
      sessions.map(async (session) => {
        for (const move of moves) {
          if (session.document(uri(move.absolute))) await session.closeDocument(uri(move.absolute));
        }
        for (const write of written) {
          const open = session.document(uri(write.absolute));
          if (!open) continue;
          const file = await paths.resolveFile(write.path).catch(() => undefined);
          if (file) await session.syncDocument(file, open.languageId).catch(() => {});
        }
        await session.notify(DidChangeWatchedFilesNotification.type, { changes });
        const fileOperations = session.capabilities.workspace?.fileOperations;
        if (renames.length > 0 && fileOperations?.didRename) {
          await session.notify(DidRenameFilesNotification.type, { files: renames });
        }
        if (deletes.length > 0 && fileOperations?.didDelete) {
          await session.notify(DidDeleteFilesNotification.type, { files: deletes });
        }
      }),
    );
  }
}

/** How planning and committing an edit reach the workspace's files. */
interface EditScope {
  paths: WorkspacePaths;
  folders: PinnedFolders;
  /** The workspace-relative path ("/"-separated) of an absolute one. */
  relativeTo(absolute: string): string;
  /** The path naming a workspace file through its pinned folder. */
  pinned(absolute: string): Promise<string>;
}

/** Everything an edit changes, validated before anything is touched. */
interface EditPlan {
  /** By workspace-relative path: created files and files with text edits. */
  writes: Map<string, PlannedWrite>;
  /** Renames and deletions, in the edit's order. */
  moves: PlannedMove[];
  /** Absolute folders created files and rename targets need (some may exist by commit time). */
  folders: Set<string>;
}

/** Plan: validate every path and precondition before touching anything. */
async function planEdit(
  scope: EditScope,
  sessions: LanguageSession[],
  edit: WorkspaceEdit,
  allowGitWrites: boolean,
): Promise<EditPlan> {
  if (!allowGitWrites) {
    for (const path of [
      ...edit.files.map((fileEdit) => fileEdit.file),
      ...edit.operations.flatMap((operation) => [operation.file, operation.kind === "rename" ? operation.newFile : ""]),
    ]) {
      refuseGitPath(path);
    }
  }
  const plan: EditPlan = { writes: new Map(), moves: [], folders: new Set() };
  await planCreations(scope, edit, plan);
  await planTextEdits(scope, sessions, edit, plan);
  await planMoves(scope, edit, plan);
  return plan;
}

/** Create operations: empty new files, which text edits of the same edit may then fill. */
async function planCreations(scope: EditScope, edit: WorkspaceEdit, plan: EditPlan): Promise<void> {
  for (const operation of edit.operations.filter((o) => o.kind === "create")) {
    const target = await scope.paths.resolveNewFile(operation.file);
    if (plan.writes.has(target.path)) throw invalidEdit(`the edit creates '${target.path}' twice`);
    for (const folder of target.missingFolders) plan.folders.add(folder);
    plan.writes.set(target.path, {
      path: target.path,
      absolute: target.absolute,
      before: undefined,
      text: "",
      bom: false,
      mode: undefined,
    });
  }
}

/** Text edits, against the files' content before any rename; each file is read (and checked) once. */
async function planTextEdits(
  scope: EditScope,
  sessions: LanguageSession[],
  edit: WorkspaceEdit,
  plan: EditPlan,
): Promise<void> {
  for (const fileEdit of edit.files) {
    let write = plan.writes.get(normalisedKey(fileEdit.file));
    const file = write ? undefined : await scope.paths.resolveFile(fileEdit.file);
    if (file) write = plan.writes.get(file.path);
    if (!write && file) {
      write = await plannedFileWrite(scope, sessions, file, fileEdit);
      plan.writes.set(file.path, write);
    }
    if (!write) throw invalidEdit(`'${fileEdit.file}' could not be planned`);
    write.text = applyTextEdits(write.text, fileEdit.edits, write.path);
  }
}

/** An existing file read through its pinned folder, refused when binary or changed since the edit was computed. */
async function plannedFileWrite(
  scope: EditScope,
  sessions: LanguageSession[],
  file: ResolvedFile,
  fileEdit: FileEdit,
): Promise<PlannedWrite> {
  const relativePath = scope.relativeTo(file.absolute);
  const folder = await scope.folders.folder(folderOf(relativePath));
  const { bytes: before, mode } = await folder.readFile(posix.basename(relativePath), file.path);
  const text = decodeDocument(before);
  if (text === undefined) throw invalidEdit(`${file.path} is a binary file; text edits cannot apply to it`);
  checkUnchanged(file.path, text, fileEdit, openDocumentIn(sessions, file.absolute));
  return {
    path: file.path,
    absolute: file.absolute,
    before,
    text,
    bom: before.subarray(0, 3).equals(Buffer.from(BOM, "utf8")),
    mode,
  };
}

/** Rename and delete operations, in their order; no path is emptied or filled twice. */
async function planMoves(scope: EditScope, edit: WorkspaceEdit, plan: EditPlan): Promise<void> {
  const { paths } = scope;
  // Paths the edit fills (created files, rename targets) and paths it empties.
  const taken = new Set([...plan.writes.values()].filter((w) => w.before === undefined).map((w) => w.path));
  const gone = new Set<string>();
  for (const operation of edit.operations.filter((o) => o.kind !== "create")) {
    const source = await paths.resolveFile(operation.file);
    if (gone.has(source.path)) throw invalidEdit(`the edit moves or deletes '${source.path}' twice`);
    gone.add(source.path);
    // The name itself moves (a symlink stays a symlink), not the file it may point to.
    const absolute = join(paths.root, source.path);
    if (operation.kind === "delete") {
      plan.moves.push({
        kind: "delete",
        path: source.path,
        absolute,
        newPath: "",
        newAbsolute: "",
        missingFolders: [],
      });
      continue;
    }
    const target = await paths.resolveNewFile(operation.newFile);
    if (taken.has(target.path)) throw invalidEdit(`the edit puts two files at '${target.path}'`);
    await refuseLinkLeavingWorkspace(paths.root, source.path, absolute, target.path, target.absolute);
    taken.add(target.path);
    for (const folder of target.missingFolders) plan.folders.add(folder);
    plan.moves.push({
      kind: "rename",
      path: source.path,
      absolute,
      newPath: target.path,
      newAbsolute: target.absolute,
      missingFolders: target.missingFolders,
    });
  }
}

/** Commit through a journal: a failure here, or a crash anywhere, leaves every file as it was. */
async function commitEdit(scope: EditScope, plan: EditPlan): Promise<void> {
  const written = [...plan.writes.values()];
  const entries = journalEntries(scope, written, plan.moves);
  const created = [...plan.folders].sort().filter((folder) => !statOf(folder));
  let journal: EditJournal | undefined;
  try {
    journal = await EditJournal.begin(scope.folders, created.map(scope.relativeTo), entries);
    await writeThroughJournal(scope, journal, created, written, plan.moves);
  } catch (error) {
    await journal?.rollBack().catch(() => {}); // What a rollback cannot undo, the next start does.
    throw commitFailure(error);
  }
  await journal.finish().catch(() => {});
}

function journalEntries(scope: EditScope, written: PlannedWrite[], moves: PlannedMove[]): JournalEntry[] {
  const { relativeTo } = scope;
  return [
    ...written.map(
      (w): JournalEntry => ({ kind: w.before === undefined ? "create" : "write", path: relativeTo(w.absolute) }),
    ),
    ...moves.map(
      (m): JournalEntry =>
        m.kind === "delete"
          ? { kind: "delete", path: relativeTo(m.absolute) }
          : { kind: "rename", path: relativeTo(m.absolute), newPath: relativeTo(m.newAbsolute) },
    ),
  ];
}

/** Folders, staged contents and backups first ("prepared"), then every change in place ("committed"). */
async function writeThroughJournal(
  scope: EditScope,
  journal: EditJournal,
  created: string[],
  written: PlannedWrite[],
  moves: PlannedMove[],
): Promise<void> {
  const { pinned } = scope;
  for (const folder of created) await mkdir(await pinned(folder));
  // Every new content is staged first: a full disk fails here, before any original is touched.
  for (const [index, write] of written.entries()) {
    const staged = await journal.staged(index);
    await writeFile(staged, (write.bom ? BOM : "") + write.text, { flag: "wx", mode: write.mode ?? 0o644 });
    if (write.mode !== undefined) await chmod(staged, write.mode);
    if (write.before !== undefined) await backUp(await pinned(write.absolute), await journal.backup(index));
  }
  await journal.mark("prepared");
  for (const [index, write] of written.entries()) {
    const staged = await journal.staged(index);
    if (write.before === undefined) await moveWithoutOverwriting(staged, await pinned(write.absolute), write.path);
    else await rename(staged, await pinned(write.absolute));
  }
  for (const [offset, move] of moves.entries()) {
    // A deleted file is moved aside and removed only once the whole edit is in place.
    const from = await pinned(move.absolute);
    if (move.kind === "delete") await rename(from, await journal.backup(written.length + offset));
    else await moveWithoutOverwriting(from, await pinned(move.newAbsolute), move.newPath);
  }
  await journal.mark("committed");
}

/** A failed commit (rolled back) as the caller hears it: stale when the workspace moved underneath. */
function commitFailure(error: unknown): RunnerError {
  if (error instanceof RunnerError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? "error";
  if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP" || code === "EEXIST") {
    // A file or folder of the edit moved or appeared after it was planned (by someone else, a swap).
    return new RunnerError(
      "STALE_EDIT",
      `a file or folder of the edit moved while it was applied (${code}); nothing was changed: compute the edit again`,
    );
  }
  return new RunnerError(
    "UNAVAILABLE",
    `the workspace could not be written (${code}); no file was changed: check the volume's space and permissions`,
  );
}

function appliedChanges({ writes, moves }: EditPlan): AppliedChanges {
  return {
    created: [...writes.values()].filter((w) => w.before === undefined).map((w) => w.path),
    changed: [...writes.values()].filter((w) => w.before !== undefined).map((w) => w.path),
    renamed: moves.filter((m) => m.kind === "rename").map((m) => ({ from: m.path, to: m.newPath })),
    deleted: moves.filter((m) => m.kind === "delete").map((m) => m.path),
  };
}

function invalidEdit(message: string): RunnerError {
  return new RunnerError("INVALID_ARGUMENT", `${message}; nothing was changed`);
}

function normalisedKey(path: string): string {
  return path.replaceAll("\\", "/").replace(/^\.\//, "");
}

/** The open document of a file in any session (at most one session serves a file's language). */
function openDocumentIn(sessions: LanguageSession[], absolute: string) {
  const uri = pathToFileURL(absolute).href;
  for (const session of sessions) {
    const document = session.document(uri);
    if (document) return document;
  }
  return undefined;
}

function checkUnchanged(
  path: string,
  text: string,
  fileEdit: { expectedVersion: number; expectedSha256: string },
  open: { version: number; hash: string } | undefined,
): void {
  const current = sha256(text);
  if (fileEdit.expectedSha256 && fileEdit.expectedSha256 !== current) {
    throw new RunnerError(
      "STALE_EDIT",
      `${path} changed after the edit was computed (content hash differs); nothing was changed: compute the edit again`,
    );
  }
  // Versions are the runner's document versions; they say something only while the document is
  // open and equal to the disk, and only without a content hash: the hash says the same more
  // exactly, and a version moves with no change on disk (check_edit lays unsaved content over a
  // document, then restores it), which must not make an edit previewed before it stale.
  const versionChecked = fileEdit.expectedVersion && !fileEdit.expectedSha256;
  if (versionChecked && open && (open.version !== fileEdit.expectedVersion || open.hash !== current)) {
    throw new RunnerError(
      "STALE_EDIT",
      `${path} changed after the edit was computed (version ${fileEdit.expectedVersion} expected, the file is now newer); nothing was changed: compute the edit again`,
    );
  }
}

/** rename(2) replaces an existing target; a hard link does not, so a file that appeared meanwhile survives. */
async function moveWithoutOverwriting(from: string, to: string, toPath: string): Promise<void> {
  const appeared = () => invalidEdit(`'${toPath}' appeared while the edit was applied`);
  try {
    await link(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw appeared();
    // Volumes without hard links: check, then rename.
    if (await lstat(to).catch(() => undefined)) throw appeared();
    await rename(from, to);
    return;
  }
  await unlink(from);
}

/**
 * A symbolic link moves as a link; a relative one points elsewhere from its new folder. Refused
 * when, from there, it would point outside the workspace (a dangling one too, unless its path
 * lies inside): a rename must never make a link into another tenant's tree.
 */
async function refuseLinkLeavingWorkspace(
  root: string,
  path: string,
  absolute: string,
  newPath: string,
  newAbsolute: string,
): Promise<void> {
  const moved = (error: unknown) => {
    throw pathError(error, path);
  };
  if (!(await lstat(absolute).catch(moved)).isSymbolicLink()) return;
  const target = await readlink(absolute).catch(moved);
  if (isAbsolute(target)) return; // Points where it did: already checked to lie inside.
  const pointsAt = resolve(dirname(newAbsolute), target);
  const realRoot = await realpath(root);
  const real = await realpath(pointsAt).catch(() => pointsAt);
  const inside = (candidate: string) => candidate === realRoot || candidate.startsWith(`${realRoot}${sep}`);
  if (!inside(real))
    throw invalidEdit(
      `'${path}' is a symbolic link to '${target}'; moved to '${newPath}' it would point outside the workspace: move the file it points to instead, or recreate the link`,
    );
}

/**
 * A repository's own files are not source: a `.git/config` with `core.fsmonitor` or a hook runs a
 * command on the tenant's next git call. Write tools never write, move or delete under `.git`.
 */
function refuseGitPath(path: string): void {
  if (typeof path !== "string" || path === "") return;
  const segments = path.replaceAll("\\", "/").split("/");
  if (segments.some((segment) => segment.toLowerCase() === ".git")) {
    throw new RunnerError(
      "INVALID_ARGUMENT",
      `'${path.slice(0, 200)}' is inside a .git folder, which write tools do not change; edit source files only (an operator can allow it: LSPMESH_ALLOW_GIT_WRITES=1)`,
    );
  }
}
