// Lines of files that answers point into, read once per request, so that positions in files the
// server never opened convert exactly too. Files read from disk are remembered per session while
// their stamp (inode, size, mtime, ctime) stays the same: agents ask about the same files again and
// again, and reading, splitting and hashing a target file cost more than the rest of a cached answer.
// Whether a target file is the workspace's (its real path inside it) is judged once per file and
// answer too: the hundreds of locations of a references answer lie in a few dozen files, and a
// realpath per location was the largest cost of such an answer in the runner (bench/profile.mjs).
// That judgement is remembered per session while its content epoch holds, and used again only for
// the very file judged: one stat per file and answer instead of a realpath (JudgedFiles).
import type { BigIntStats } from "node:fs";
import { pathToFileURL } from "node:url";
import { decodeDocument, sha256, splitLines } from "../lsp/documents/textDocument.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import {
  changedAtMsOf,
  identityOf,
  openedFile,
  readKnownFile,
  stampOf,
  statOf,
  trustedStamp,
} from "../workspace/metadata.js";
import type { WorkspacePaths } from "../workspace/workspacePaths.js";
import { isInside } from "../workspace/workspacePaths.js";

/** Files larger than this are not read for position conversion (default 8 MiB). */
const MAX_READ_BYTES = 8 * 1024 * 1024;
/** Files remembered per session, at most (least recently used dropped first). */
const REMEMBERED_FILES = 256;
/** Characters of remembered files per session, at most (about 2 bytes each: 32 MiB). */
const REMEMBERED_CHARS = 16 * 1024 * 1024;

interface Remembered {
  stamp: string;
  chars: number;
  snapshot: FileSnapshot;
}

/** Per session: files read from disk for conversion, by absolute path, in least-recently-used order. */
class RememberedFiles {
  private readonly files = new Map<string, Remembered>();
  private chars = 0;

  get(absolute: string, stamp: string): FileSnapshot | undefined {
    const known = this.files.get(absolute);
    if (!known) return undefined;
    this.files.delete(absolute);
    if (known.stamp !== stamp) {
      this.chars -= known.chars;
      return undefined;
    }
    this.files.set(absolute, known);
    return known.snapshot;
  }

  set(absolute: string, stamp: string, chars: number, snapshot: FileSnapshot): void {
    if (chars > REMEMBERED_CHARS / 4) return;
    const previous = this.files.get(absolute);
    if (previous) {
      this.files.delete(absolute);
      this.chars -= previous.chars;
    }
    this.files.set(absolute, { stamp, chars, snapshot });
    this.chars += chars;
    for (const [path, oldest] of this.files) {
      if (this.files.size <= REMEMBERED_FILES && this.chars <= REMEMBERED_CHARS) break;
      this.files.delete(path);
      this.chars -= oldest.chars;
    }
  }
}

const rememberedBySession = new WeakMap<LanguageSession, RememberedFiles>();

/** Workspace judgements remembered per session, at most (the oldest dropped first). */
const JUDGED_FILES = 8192;

interface Judged {
  /** identityOf the file judged, from the descriptor its real path was read through. */
  identity: string;
  /** Its workspace-relative path; undefined when it lies outside the workspace. */
  file: string | undefined;
}

/**
 * Per session: whether a file a server named is the workspace's, by root and absolute path, while
 * the session's content epoch holds (forgotten when it moves). A judgement is used only while the
 * path still leads to the file judged: same device, inode, size and times by a stat taken for the
 * answer. Its real path and identity were read through one descriptor, so a file or a folder on its
 * path swapped for a symlink (to outside or not) leads to another inode and is judged again: the
 * workspace's writer cannot make a remembered "inside" stand for a file elsewhere.
 */
class JudgedFiles {
  private readonly files = new Map<string, Judged>();
  private epoch: number;

  constructor(private readonly session: LanguageSession) {
    this.epoch = session.contentEpoch;
  }

  get(key: string, identity: string): Judged | undefined {
    this.forgetOnNewEpoch();
    const known = this.files.get(key);
    return known?.identity === identity ? known : undefined;
  }

  set(key: string, judged: Judged): void {
    this.forgetOnNewEpoch();
    this.files.delete(key);
    this.files.set(key, judged);
    if (this.files.size > JUDGED_FILES) this.files.delete(this.files.keys().next().value!);
  }

  private forgetOnNewEpoch(): void {
    if (this.session.contentEpoch === this.epoch) return;
    this.files.clear();
    this.epoch = this.session.contentEpoch;
  }
}

const judgedBySession = new WeakMap<LanguageSession, JudgedFiles>();

function judgedFilesOf(session: LanguageSession): JudgedFiles {
  let judged = judgedBySession.get(session);
  if (!judged) {
    judged = new JudgedFiles(session);
    judgedBySession.set(session, judged);
  }
  return judged;
}

/** A file's content as the server saw it: its open document, or else the disk. */
export interface FileSnapshot {
  lines: string[];
  /** sha256 of the text ("" when the file could not be read). */
  sha256: string;
  /** Version of the open document, 0 when the server reads the file from disk. */
  version: number;
}

export class FileLines {
  private readonly cache = new Map<string, Promise<FileSnapshot>>();
  private readonly workspaceFiles = new Map<string, Promise<string | undefined>>();
  /** stat of each file this answer looked at (judged, read): taken once. */
  private readonly stats = new Map<string, BigIntStats | undefined>();

  constructor(private readonly session: LanguageSession) {}

  /** `paths.toWorkspaceFile(absolute)`, judged once per file for this answer (remembered: JudgedFiles). */
  workspaceFile(paths: WorkspacePaths, absolute: string): Promise<string | undefined> {
    const key = `${paths.root}\0${absolute}`;
    let file = this.workspaceFiles.get(key);
    if (!file) {
      file = this.judge(paths, absolute, key);
      this.workspaceFiles.set(key, file);
    }
    return file;
  }

  private async judge(paths: WorkspacePaths, absolute: string, key: string): Promise<string | undefined> {
    const path = paths.toWorkspacePath(absolute);
    if (path === undefined) return undefined;
    let info: BigIntStats | undefined;
    try {
      info = this.statOnce(absolute);
    } catch {
      info = undefined;
    }
    // Gone, not a regular file, or not to be looked at: judged afresh, as before (by its path when gone).
    if (!info?.isFile()) return paths.toWorkspaceFile(absolute);
    const judged = judgedFilesOf(this.session);
    const known = judged.get(key, identityOf(info));
    if (known) return known.file;
    const opened = openedFile(absolute);
    if (!opened) return paths.toWorkspaceFile(absolute);
    const file = isInside(paths.root, opened.real) ? path : undefined;
    // A file changed within the racy window might change again without its identity changing.
    if (trustedStamp(opened.identity, opened.changedAtMs, Date.now()) !== undefined) {
      judged.set(key, { identity: opened.identity, file });
    }
    return file;
  }

  private statOnce(absolute: string): BigIntStats | undefined {
    if (this.stats.has(absolute)) return this.stats.get(absolute);
    const info = statOf(absolute);
    this.stats.set(absolute, info);
    return info;
  }

  async get(absolute: string): Promise<string[]> {
    return (await this.snapshot(absolute)).lines;
  }

  snapshot(absolute: string): Promise<FileSnapshot> {
    let snapshot = this.cache.get(absolute);
    if (!snapshot) {
      snapshot = this.read(absolute);
      this.cache.set(absolute, snapshot);
    }
    return snapshot;
  }

  private async read(absolute: string): Promise<FileSnapshot> {
    const open = this.session.document(pathToFileURL(absolute).href);
    if (open) return { lines: open.lines, sha256: open.hash, version: open.version };
    const unreadable = { lines: [], sha256: "", version: 0 };
    const info = this.statOnce(absolute);
    // Only regular files: a device or FIFO would never end (and a synchronous read would block).
    if (!info?.isFile() || info.size > MAX_READ_BYTES) return unreadable;
    let remembered = rememberedBySession.get(this.session);
    if (!remembered) {
      remembered = new RememberedFiles();
      rememberedBySession.set(this.session, remembered);
    }
    const stamp = stampOf(info);
    const known = remembered.get(absolute, stamp);
    if (known) return known;
    const readAtMs = Date.now();
    // A workspace file's snippet comes from inside the workspace, even when a folder on its path is
    // swapped for a symlink meanwhile (files outside it, such as a library's, are not checked).
    const root = this.session.root;
    const at = root !== undefined && isInside(root, absolute) ? { beneath: root } : undefined;
    const bytes = await Promise.resolve()
      .then(() => readKnownFile(absolute, info.size, at))
      .catch(() => undefined);
    if (!bytes) return unreadable;
    const text = decodeDocument(bytes);
    if (text === undefined) return unreadable;
    const snapshot = { lines: splitLines(text), sha256: sha256(text), version: 0 };
    // Read within the racy window of its last change: not remembered (it may change unseen).
    if (trustedStamp(stamp, changedAtMsOf(info), readAtMs) !== undefined)
      remembered.set(absolute, stamp, text.length, snapshot);
    return snapshot;
  }
}

/** The code line shown with a location: trimmed, at most 200 characters. */
export function snippetOf(lines: readonly string[], line: number): string {
  const text = (lines[line - 1] ?? "").trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
