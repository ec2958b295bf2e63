// Document text as language servers see it: a leading BOM is not part of the text, and lines
// end at \r\n, \n or \r (LSP 3.17 "Text Documents").
import { createHash } from "node:crypto";

const BOM = "\uFEFF";

export function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Lines as editors and read_file count them: the empty line after a final newline is no line. */
export function shownLineCount(lines: readonly string[]): number {
  return lines.length > 1 && lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Decodes file bytes as UTF-8 document text; refuses binary content. */
export function decodeDocument(bytes: Buffer): string | undefined {
  // A NUL byte in the first 8 KiB is what git and most editors take as "binary".
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  return stripBom(bytes.toString("utf8"));
}
