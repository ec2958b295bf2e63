// Lines of files that answers point into, read once per request, so that positions in files the
// server never opened convert exactly too.
import { pathToFileURL } from "node:url";
import { decodeDocument, sha256, splitLines } from "../lsp/documents/textDocument.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { readKnownFile, statOf } from "../workspace/metadata.js";

/** Files larger than this are not read for position conversion (default 8 MiB). */
const MAX_READ_BYTES = 8 * 1024 * 1024;

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

  constructor(private readonly session: LanguageSession) {}

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
    const text = decodeDocument(await readKnownFile(absolute, info.size));
    return text === undefined ? unreadable : { lines: splitLines(text), sha256: sha256(text), version: 0 };
  }
}

/** The code line shown with a location: trimmed, at most 200 characters. */
export function snippetOf(lines: readonly string[], line: number): string {
  const text = (lines[line - 1] ?? "").trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
