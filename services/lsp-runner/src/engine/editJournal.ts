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
// Every operation goes through the edit's pinned folders (PinnedFolders): a folder swapped for a
// symlink out of the workspace while the edit runs is refused, never written through.
//
// SIGKILL-safe by construction (the kernel's page cache survives a killed process); the journal
// itself is fsynced, file contents are not (after a power loss, the filesystem's own ordering of
// rename-over-write applies).

import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, link, lstat, open, readdir, rename, rmdir, unlink } from "node:fs/promises";
import { basename, posix } from "node:path";
import { folderOf, type PinnedFolder, PinnedFolders } from "../workspace/pinnedFolder.js";

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
    private readonly folders: PinnedFolders,
    private readonly content: JournalContent,
  ) {}

  /**
   * Starts an edit's journal (state staging) in the root `folders` pins, before anything is
   * staged. The journal owns nothing: the caller closes `folders` after finish() or rollBack().
   */
  static async begin(folders: PinnedFolders, created: string[], entries: JournalEntry[]): Promise<EditJournal> {
    const id = randomBytes(8).toString("hex");
    const journal = new EditJournal(folders, { version: 1, id, state: "staging", folders: created, entries });
    const file = await journal.file();
    try {
      await writeDurably(file, journal.serialise(), "wx");
    } catch (error) {
      await removeIfPresent(file).catch(() => {}); // A full disk: a part written, nothing staged.
      throw error;
    }
    return journal;
  }

  /** Path of the staged new content of entry `index`. */
  staged(index: number): Promise<string> {
    return siblingOf(this.folders, this.content, index, "new");
  }

  /** Path of the backup (original content, or a deleted file moved aside) of entry `index`. */
  backup(index: number): Promise<string> {
    return siblingOf(this.folders, this.content, index, "old");
  }

  /** Records how far the edit got; the state a crash leaves decides roll back or forward. */
  async mark(state: JournalState): Promise<void> {
    this.state = state;
    const file = await this.file();
    await writeDurably(`${file}.next`, this.serialise(), "w");
    await rename(`${file}.next`, file);
  }

  /** Undoes whatever part of the edit is in place (any state but committed), then removes the journal. */
  async rollBack(): Promise<void> {
    await undo(this.folders, this.content, this.state);
    await removeJournal(await this.file());
  }

  /** Removes backups and the journal of a committed edit. */
  async finish(): Promise<void> {
    await removeBackups(this.folders, this.content);
    await removeJournal(await this.file());
  }

  private async file(): Promise<string> {
    return (await this.folders.folder("")).path(`.lspmesh-edit-${this.content.id}.journal`);
  }

  private serialise(): string {
    return JSON.stringify({ ...this.content, state: this.state });
  }
}

/**
 * Rolls back or finishes every edit a crash interrupted in the workspace at `root` (real path).
 * Journals are workspace bytes like any other: one that names a path outside the workspace (by
 * '..', or through a symlink) is left untouched and named in `refused` (the caller logs it).
 */
export async function recoverInterruptedEdits(root: string): Promise<{ recovered: number; refused: string[] }> {
  const names = (await readdir(root).catch(() => [] as string[])).filter((name) => JOURNAL_NAME.test(name));
  let recovered = 0;
  const refused: string[] = [];
  const folders = new PinnedFolders(root);
  try {
    const top = await folders.folder("");
    // A `.next` left behind was never renamed over its journal: the journal holds the last state.
    for (const name of names.filter((n) => n.endsWith(".next"))) await removeIfPresent(top.path(name));
    for (const name of names.filter((n) => !n.endsWith(".next"))) {
      const file = top.path(name);
      const content = await readJournal(top, name, JOURNAL_NAME.exec(name)?.[1] ?? "");
      if (content === "unreadable") {
        // Killed while the first state was being written: nothing was staged yet.
        await removeIfPresent(file);
        recovered++;
        continue;
      }
      if (!content || !(await pathsInside(folders, content))) {
        refused.push(name);
        continue;
      }
      if (content.state === "committed") await removeBackups(folders, content);
      else await undo(folders, content, content.state);
      await removeIfPresent(file);
      recovered++;
    }
  } finally {
    await folders.close();
  }
  return { recovered, refused };
}

/**
 * Puts every original back, in the reverse order of applying: moves, deletions, writes, then the
 * folders the edit created. Each step looks at what is on disk, so running it again is harmless.
 * While staging, no original was touched: only staged and backup files are removed.
 */
async function undo(folders: PinnedFolders, content: JournalContent, state: JournalState): Promise<void> {
  // A folder that cannot be pinned (gone, or a symlink out of the workspace by now) was never
  // pinned by the edit either, when it is the edit's own pins: nothing of the edit happened there.
  // After a crash, recovery checked every folder first (pathsInside).
  const at = (path: string) => folders.pathOf(path).catch(() => undefined);
  const sibling = (index: number, suffix: "new" | "old") =>
    siblingOf(folders, content, index, suffix).catch(() => undefined);
  const entries = content.entries.map((entry, index) => ({ entry, index })).reverse();
  const applied = state !== "staging";
  for (const { entry } of entries) {
    if (entry.kind !== "rename" || !applied) continue;
    const from = await at(entry.path);
    const to = await at(entry.newPath);
    if (!from || !to) continue;
    const source = await lstat(from).catch(() => undefined);
    const target = await lstat(to).catch(() => undefined);
    if (!target) continue;
    if (!source) await rename(to, from);
    else if (sameFile(source, target)) await unlink(to);
  }
  for (const { entry, index } of entries) {
    const staged = await sibling(index, "new");
    const backup = await sibling(index, "old");
    const path = await at(entry.path);
    if (!staged || !backup || !path) continue;
    if (entry.kind === "delete" || (entry.kind === "write" && applied)) {
      // A staged file still there was never renamed in: the original is in place.
      const replaced = entry.kind === "delete" || !(await exists(staged));
      if (replaced && (await exists(backup))) await rename(backup, path);
    } else if (entry.kind === "create" && applied) {
      // Linked into place (or renamed, where links are unavailable): ours to remove. A staged file
      // still there is ours in place only when the crash fell between link and unlink.
      const target = await lstat(path).catch(() => undefined);
      const source = await lstat(staged).catch(() => undefined);
      if (target && (!source || sameFile(source, target))) await unlink(path);
    }
    await removeIfPresent(staged);
    await removeIfPresent(backup);
  }
  for (const folder of [...content.folders].reverse()) {
    await folders.forget(folder);
    const parent = await folders.folder(folderOf(folder)).catch(() => undefined);
    // Not empty: something lives there now.
    if (parent) await rmdir(parent.path(basename(folder))).catch(() => {});
  }
}

async function removeBackups(folders: PinnedFolders, content: JournalContent): Promise<void> {
  for (const index of content.entries.keys()) await removeIfPresent(await siblingOf(folders, content, index, "old"));
}

async function removeJournal(file: string): Promise<void> {
  await removeIfPresent(`${file}.next`);
  await removeIfPresent(file);
}

function sameFile(a: { ino: number; dev: number }, b: { ino: number; dev: number }): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

async function siblingOf(
  folders: PinnedFolders,
  content: JournalContent,
  index: number,
  suffix: "new" | "old",
): Promise<string> {
  const entry = content.entries[index];
  if (!entry) throw new Error(`journal ${content.id} has no entry ${index}`);
  return folders.siblingOf(entry.path, `.lspmesh-${content.id}-${index}.${suffix}`);
}

async function readJournal(
  top: PinnedFolder,
  name: string,
  id: string,
): Promise<JournalContent | "unreadable" | undefined> {
  let bytes: Buffer;
  try {
    if ((await lstat(top.path(name))).size > MAX_JOURNAL_BYTES) return undefined;
    ({ bytes } = await top.readFile(name));
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
 * Every path of a journal stays inside the workspace: normalised, relative, no '..', and the
 * folder of each that exists pins inside the workspace (symlinks resolved).
 */
async function pathsInside(folders: PinnedFolders, content: JournalContent): Promise<boolean> {
  const paths = [
    ...content.folders,
    ...content.entries.flatMap((entry) => (entry.kind === "rename" ? [entry.path, entry.newPath] : [entry.path])),
  ];
  for (const path of paths) {
    const normalised = posix.normalize(path);
    if (normalised !== path || path.startsWith("/") || path === "." || path === ".." || path.startsWith("../")) {
      return false;
    }
    try {
      await folders.folder(folderOf(path));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A folder the edit created and a crash left uncreated does not exist: nothing to undo there.
      if (code !== "ENOENT") return false;
    }
  }
  return true;
}

/** Writes and fsyncs a small file; `flag` "wx" refuses an existing one. */
async function writeDurably(path: string, text: string, flag: "w" | "wx"): Promise<void> {
  const handle = await open(path, flag, 0o600);
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
