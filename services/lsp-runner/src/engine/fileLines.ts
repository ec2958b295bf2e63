// Lines of files that answers point into, read once per request, so that positions in files the
// server never opened convert exactly too.
import { readFile, stat } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import type { LanguageSession } from "../lsp/languageSession.js";
import { decodeDocument, splitLines } from "../lsp/textDocument.js";

/** Files larger than this are not read for position conversion (default 8 MiB). */
const MAX_READ_BYTES = 8 * 1024 * 1024;

export class FileLines {
  private readonly cache = new Map<string, Promise<string[]>>();

  constructor(private readonly session: LanguageSession) {}

  get(absolute: string): Promise<string[]> {
    let lines = this.cache.get(absolute);
    if (!lines) {
      lines = this.read(absolute);
      this.cache.set(absolute, lines);
    }
    return lines;
  }

  private async read(absolute: string): Promise<string[]> {
    const open = this.session.document(pathToFileURL(absolute).href);
    if (open) return open.lines;
    const info = await stat(absolute).catch(() => undefined);
    if (!info || info.size > MAX_READ_BYTES) return [];
    const text = decodeDocument(await readFile(absolute));
    return text === undefined ? [] : splitLines(text);
  }
}

/** The code line shown with a location: trimmed, at most 200 characters. */
export function snippetOf(lines: readonly string[], line: number): string {
  const text = (lines[line - 1] ?? "").trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
