// Lines of files that answers point into, read once per request, so that positions in files the
// server never opened convert exactly too. Files read from disk are remembered per session while
// their stamp (inode, size, mtime, ctime) stays the same: agents ask about the same files again and
// again, and reading, splitting and hashing a target file cost more than the rest of a cached answer.
// Whether a target file is the workspace's (its real path inside it) is judged once per file and
// answer too: the hundreds of locations of a references answer lie in a few dozen files, and a
// realpath per location was the largest cost of such an answer in the runner (bench/profile.mjs).
import { pathToFileURL } from "node:url";
import { decodeDocument, sha256, splitLines } from "../lsp/documents/textDocument.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { changedAtMsOf, readKnownFile, stampOf, statOf, trustedStamp } from "../workspace/metadata.js";
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

  constructor(private readonly session: LanguageSession) {}

  /** `paths.toWorkspaceFile(absolute)`, asked once per file for this answer. */
  workspaceFile(paths: WorkspacePaths, absolute: string): Promise<string | undefined> {
    const key = `${paths.root}\0${absolute}`;
    let file = this.workspaceFiles.get(key);
    if (!file) {
      file = paths.toWorkspaceFile(absolute);
      this.workspaceFiles.set(key, file);
    }
    return file;
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
    const info = statOf(absolute);
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
