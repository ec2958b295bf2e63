// Makes a multi-file edit all-or-nothing across a crash (SIGKILL, OOM kill, node drain). Before a
// file changes, a journal in the workspace root names every file the edit stages, backs up, moves
// or creates; its state says how far the edit got:
//   staging   — new contents (`.new`) and backups (`.old`, a hard link to the original) are being
//               written; no original has changed yet.
//   prepared  — everything is staged; originals are being replaced, moved or deleted.
//   committed — every change is in place; only backups are left to remove.
// The next time the runner opens the workspace (at start for the workspaces it is configured with,
// or before the first call that names it), an interrupted edit is rolled back (staging, prepared)
// or finished (committed), and no staged or backup file survives. A live failure rolls back the
// same way. Staged and backup files lie beside the file they stand for (a rename within one
// folder is atomic), named after the edit and the file's index, never outside the workspace.
//
// SIGKILL-safe by construction (the kernel's page cache survives a killed process); the journal
// itself is fsynced, file contents are not (after a power loss, the filesystem's own ordering of
// rename-over-write applies).

import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, link, lstat, open, readdir, realpath, rename, rmdir, unlink } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { readRegularFile } from "../workspace/metadata.js";
import { isInside } from "../workspace/workspacePaths.js";

export type JournalState = "staging" | "prepared" | "committed";

/** One file an edit touches, by workspace-relative real path. */
export type JournalEntry =
  /** Content replaced: `.new` renamed over it; `.old` keeps the original. */
  | { kind: "write"; path: string }
  /** Created: `.new` linked into place. */
  | { kind: "create"; path: string }
  /** Deleted: moved aside to `.old`, removed once committed. */
  | { kind: "delete"; path: string }
  /** Moved: hard-linked at newPath, then unlinked (rename(2) where hard links are unavailable). */
  | { kind: "rename"; path: string; newPath: string };

interface JournalContent {
  version: 1;
  id: string;
  state: JournalState;
  /** Folders the edit creates, outermost first (workspace-relative). */
  folders: string[];
  entries: JournalEntry[];
}

const JOURNAL_NAME = /^\.lspmesh-edit-([0-9a-f]{16})\.journal(\.next)?$/;
/** A journal is small (paths only); anything larger was not written by a runner (bytes). */
const MAX_JOURNAL_BYTES = 16 * 1024 * 1024;

export class EditJournal {
  private state: JournalState = "staging";

  private constructor(
    private readonly root: string,
    private readonly content: JournalContent,
  ) {}

  /** Starts an edit's journal (state staging), written before anything is staged. */
  static async begin(root: string, folders: string[], entries: JournalEntry[]): Promise<EditJournal> {
    const id = randomBytes(8).toString("hex");
    const journal = new EditJournal(root, { version: 1, id, state: "staging", folders, entries });
    try {
      await writeDurably(journal.file, journal.serialise(), "wx");
    } catch (error) {
      await removeIfPresent(journal.file).catch(() => {}); // A full disk: a part written, nothing staged.
      throw error;
    }
    return journal;
  }

  get file(): string {
    return join(this.root, `.lspmesh-edit-${this.content.id}.journal`);
  }

  /** Absolute path of the staged new content of entry `index`. */
  staged(index: number): string {
    return this.sibling(index, "new");
  }

  /** Absolute path of the backup (original content, or a deleted file moved aside) of entry `index`. */
  backup(index: number): string {
    return this.sibling(index, "old");
  }

  /** Records how far the edit got; the state a crash leaves decides roll back or forward. */
  async mark(state: JournalState): Promise<void> {
    this.state = state;
    const next = `${this.file}.next`;
    await writeDurably(next, this.serialise(), "w");
    await rename(next, this.file);
  }

  /** Undoes whatever part of the edit is in place (any state but committed), then removes the journal. */
  async rollBack(): Promise<void> {
    await undo(this.root, this.content, this.state);
    await this.remove();
  }

  /** Removes backups and the journal of a committed edit. */
  async finish(): Promise<void> {
    await Promise.all(this.content.entries.map((_, index) => removeIfPresent(this.backup(index))));
    await this.remove();
  }

  private async remove(): Promise<void> {
    await removeIfPresent(`${this.file}.next`);
    await removeIfPresent(this.file);
  }

  private sibling(index: number, suffix: "new" | "old"): string {
    return siblingOf(this.root, this.content, index, suffix);
  }

  private serialise(): string {
    return JSON.stringify({ ...this.content, state: this.state });
  }
}

/**
 * Rolls back or finishes every edit a crash interrupted in the workspace at `root` (real path).
 * Returns how many journals were found. Journals are workspace bytes like any other: every path in
 * one must lie inside the workspace, or the journal is set aside untouched (logged by the caller).
 */
export async function recoverInterruptedEdits(root: string): Promise<{ recovered: number; refused: string[] }> {
  const names = (await readdir(root).catch(() => [] as string[])).filter((name) => JOURNAL_NAME.test(name));
  let recovered = 0;
  const refused: string[] = [];
  // A `.next` left behind was never renamed over its journal: the journal holds the last state.
  for (const name of names.filter((n) => n.endsWith(".next"))) await removeIfPresent(join(root, name));
  for (const name of names.filter((n) => !n.endsWith(".next"))) {
    const file = join(root, name);
    const id = JOURNAL_NAME.exec(name)?.[1] ?? "";
    const content = await readJournal(file, id);
    if (content === "unreadable") {
      // Killed while the first state was being written: nothing was staged yet.
      await removeIfPresent(file);
      recovered++;
      continue;
    }
    if (!content || !(await pathsInside(root, content))) {
      refused.push(name);
      continue;
    }
    if (content.state === "committed") {
      await Promise.all(content.entries.map((_, index) => removeIfPresent(siblingOf(root, content, index, "old"))));
    } else {
      await undo(root, content, content.state);
    }
    await removeIfPresent(file);
    recovered++;
  }
  return { recovered, refused };
}

/**
 * Puts every original back, in the reverse order of applying: moves, deletions, writes, then the
 * folders the edit created. Each step looks at what is on disk, so running it again is harmless.
 * While staging, no original was touched: only staged and backup files are removed.
 */
async function undo(root: string, content: JournalContent, state: JournalState): Promise<void> {
  const at = (path: string) => join(root, path);
  const entries = content.entries.map((entry, index) => ({ entry, index })).reverse();
  const applied = state !== "staging";
  for (const { entry } of entries) {
    if (entry.kind !== "rename" || !applied) continue;
    const from = at(entry.path);
    const to = at(entry.newPath);
    const source = await lstat(from).catch(() => undefined);
    const target = await lstat(to).catch(() => undefined);
    if (!target) continue;
    if (!source) await rename(to, from);
    else if (source.ino === target.ino && source.dev === target.dev) await unlink(to);
  }
  for (const { entry, index } of entries) {
    const staged = siblingOf(root, content, index, "new");
    const backup = siblingOf(root, content, index, "old");
    const path = at(entry.path);
    if (entry.kind === "delete" || (entry.kind === "write" && applied)) {
      // A staged file still there was never renamed in: the original is in place.
      const replaced = entry.kind === "delete" || !(await exists(staged));
      if (replaced && (await exists(backup))) await rename(backup, path);
    } else if (entry.kind === "create" && applied) {
      // Linked into place (or renamed, where links are unavailable): ours to remove. A staged file
      // still there is ours in place only when the crash fell between link and unlink.
      const target = await lstat(path).catch(() => undefined);
      const source = await lstat(staged).catch(() => undefined);
      if (target && (!source || (source.ino === target.ino && source.dev === target.dev))) await unlink(path);
    }
    await removeIfPresent(staged);
    await removeIfPresent(backup);
  }
  for (const folder of [...content.folders].reverse()) {
    await rmdir(at(folder)).catch(() => {}); // Not empty: something else lives there now.
  }
}

function siblingOf(root: string, content: JournalContent, index: number, suffix: "new" | "old"): string {
  const entry = content.entries[index];
  if (!entry) throw new Error(`journal ${content.id} has no entry ${index}`);
  return join(root, dirname(entry.path), `.lspmesh-${content.id}-${index}.${suffix}`);
}

async function readJournal(file: string, id: string): Promise<JournalContent | "unreadable" | undefined> {
  let bytes: Buffer;
  try {
    if (((await lstat(file)).size ?? 0) > MAX_JOURNAL_BYTES) return undefined;
    bytes = await readRegularFile(file);
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return "unreadable";
  }
  return isJournalContent(parsed, id) ? parsed : undefined;
}

function isJournalContent(value: unknown, id: string): value is JournalContent {
  if (typeof value !== "object" || value === null) return false;
  const journal = value as Partial<JournalContent>;
  const isPath = (path: unknown) => typeof path === "string" && path !== "" && !path.includes("\0");
  return (
    journal.version === 1 &&
    journal.id === id &&
    (journal.state === "staging" || journal.state === "prepared" || journal.state === "committed") &&
    Array.isArray(journal.folders) &&
    journal.folders.every(isPath) &&
    Array.isArray(journal.entries) &&
    journal.entries.every(
      (entry) =>
        typeof entry === "object" &&
        entry !== null &&
        isPath(entry.path) &&
        (entry.kind === "write" ||
          entry.kind === "create" ||
          entry.kind === "delete" ||
          (entry.kind === "rename" && isPath(entry.newPath))),
    )
  );
}

/**
 * Every path of a journal stays inside the workspace: normalised, relative, no '..', and its
 * nearest existing folder's real path (symlinks resolved) inside the workspace's real path.
 */
async function pathsInside(root: string, content: JournalContent): Promise<boolean> {
  const paths = [
    ...content.folders,
    ...content.entries.flatMap((entry) => (entry.kind === "rename" ? [entry.path, entry.newPath] : [entry.path])),
  ];
  for (const path of paths) {
    const normalised = posix.normalize(path);
    const lexical =
      normalised === path &&
      !path.startsWith("/") &&
      normalised !== "." &&
      normalised !== ".." &&
      !normalised.startsWith("../") &&
      isInside(root, join(root, path));
    if (!lexical) return false;
    let folder = dirname(join(root, path));
    let real: string | undefined;
    while (real === undefined) {
      real = await realpath(folder).catch(() => undefined);
      if (real === undefined) folder = dirname(folder);
    }
    if (!isInside(root, real)) return false;
  }
  return true;
}

/** Writes and fsyncs a small file; `flag` "wx" refuses an existing one. */
async function writeDurably(path: string, text: string, flag: "w" | "wx"): Promise<void> {
  const handle = await open(path, flag === "wx" ? "wx" : "w", 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

async function removeIfPresent(path: string): Promise<void> {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/**
 * A backup of `path` at `backup`: a hard link (the original inode, restored exactly by a rename),
 * or a copy with the same mode on volumes without hard links.
 */
export async function backUp(path: string, backup: string): Promise<void> {
  try {
    await link(path, backup);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "EXDEV") throw error;
    await copyFile(path, backup, constants.COPYFILE_EXCL);
  }
}
