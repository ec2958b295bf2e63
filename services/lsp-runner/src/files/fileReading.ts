// read_file: a workspace file's lines as text, through the same path rules as every request (a
// path or symlink leading out of the workspace is refused; FIFOs and devices are never opened for
// reading; binary and oversized files are refused with what to do instead).
import { RunnerError } from "../errors.js";
import { decodeDocument, sha256, splitLines } from "../lsp/documents/textDocument.js";
import { DEFAULT_MAX_FILE_BYTES } from "../lsp/session/serverDocuments.js";
import { readKnownFile } from "../workspace/metadata.js";
import { pathError, type WorkspacePaths } from "../workspace/workspacePaths.js";

/** Text answered at most per call (bytes of UTF-8) unless asked otherwise, default 100 000. */
export const READ_DEFAULT_MAX_BYTES = 100_000;

export interface FileReadQuery {
  paths: WorkspacePaths;
  file: string;
  /** 1-based, inclusive; 0 = from the first / to the last line. */
  startLine: number;
  endLine: number;
  maxBytes: number;
}

export interface FileReadAnswer {
  file: string;
  /** The lines returned, each ending with "\n". */
  text: string;
  startLine: number;
  endLine: number;
  totalLines: number;
  size: number;
  /** Hash of the whole text as edits check it (expected_sha256): UTF-8, without a leading BOM. */
  contentSha256: string;
  truncated: boolean;
}

export async function readWorkspaceFile(query: FileReadQuery): Promise<FileReadAnswer> {
  const file = await query.paths.resolveFile(query.file);
  if (file.size > DEFAULT_MAX_FILE_BYTES) {
    throw new RunnerError(
      "FILE_TOO_LARGE",
      `${file.path} is ${(file.size / 1048576).toFixed(1)} MiB; files over ${DEFAULT_MAX_FILE_BYTES / 1048576} MiB are not read, and search_text skips them too`,
    );
  }
  // The file opened must be the one resolved: a folder on its path swapped since is refused.
  const bytes = await Promise.resolve()
    .then(() => readKnownFile(file.absolute, file.size, { exactly: file.absolute }))
    .catch((error: unknown) => {
      throw pathError(error, file.path);
    });
  const text = decodeDocument(bytes);
  if (text === undefined)
    throw new RunnerError("INVALID_ARGUMENT", `${file.path} is a binary file; it has no lines to read`);
  const lines = splitLines(text);
  // A final line break ends the last line rather than starting an empty one.
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  const totalLines = lines.length;
  const startLine = Math.max(1, query.startLine || 1);
  if (startLine > totalLines) {
    throw new RunnerError(
      "INVALID_ARGUMENT",
      `${file.path} has ${totalLines} line(s); start_line ${startLine} is past its end`,
    );
  }
  const lastAsked = Math.min(totalLines, query.endLine || totalLines);
  if (lastAsked < startLine) {
    throw new RunnerError("INVALID_ARGUMENT", `end_line ${query.endLine} is before start_line ${startLine}`);
  }
  const budget = query.maxBytes || READ_DEFAULT_MAX_BYTES;
  let used = 0;
  let endLine = startLine - 1;
  const taken: string[] = [];
  let firstLineCut = false;
  for (let line = startLine; line <= lastAsked; line++) {
    const piece = `${lines[line - 1]}\n`;
    const size = Buffer.byteLength(piece);
    if (used + size > budget && taken.length > 0) break;
    endLine = line;
    if (size > budget) {
      // The first line alone passes the budget (a minified file): its first budget bytes, cut at a
      // character and without its line break, so that no answer is larger than asked.
      taken.push(prefixWithin(piece, budget));
      firstLineCut = true;
      break;
    }
    taken.push(piece);
    used += size;
  }
  return {
    file: file.path,
    text: taken.join(""),
    startLine,
    endLine,
    totalLines,
    size: file.size,
    contentSha256: sha256(text),
    truncated: firstLineCut || endLine < lastAsked,
  };
}

/** The longest start of text that is at most maxBytes of UTF-8, whole code points only. */
function prefixWithin(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const point of text) {
    bytes += Buffer.byteLength(point);
    if (bytes > maxBytes) break;
    end += point.length;
  }
  return text.slice(0, end);
}
