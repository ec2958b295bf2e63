// Validation of file-change announcements (`lspmesh.fs.…`) as runners receive them from writers.
import type { FileChangeKind, FileEventsMessage } from "./payloads.js";

/** Changes accepted in one message, at most (default 10 000); writers split larger batches. */
export const MAX_CHANGES_PER_MESSAGE = 10_000;

const KINDS: ReadonlySet<string> = new Set<FileChangeKind>(["created", "changed", "deleted"]);

/** A malformed message; the text names what to fix. */
export class FileEventsError extends Error {
  override readonly name = "FileEventsError";
}

/** Parses and checks a FileEventsMessage (JSON bytes); throws FileEventsError naming the problem. */
export function parseFileEvents(bytes: Uint8Array): FileEventsMessage {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new FileEventsError("not JSON: send {v: 1, changes: [{file, kind}]}");
  }
  if (typeof value !== "object" || value === null || (value as { v?: unknown }).v !== 1) {
    throw new FileEventsError('expected an object with "v": 1');
  }
  const changes = (value as { changes?: unknown }).changes;
  if (!Array.isArray(changes) || changes.length === 0) {
    throw new FileEventsError('"changes" must be a non-empty array of {file, kind}');
  }
  if (changes.length > MAX_CHANGES_PER_MESSAGE) {
    throw new FileEventsError(`more than ${MAX_CHANGES_PER_MESSAGE} changes in one message; split the batch`);
  }
  for (const [index, change] of changes.entries()) {
    const { file, kind } = (change ?? {}) as { file?: unknown; kind?: unknown };
    if (typeof file !== "string" || file === "") {
      throw new FileEventsError(`changes[${index}].file must be a workspace-relative path`);
    }
    if (typeof kind !== "string" || !KINDS.has(kind)) {
      throw new FileEventsError(`changes[${index}].kind must be "created", "changed" or "deleted"`);
    }
  }
  return { v: 1, changes: changes.map(({ file, kind }) => ({ file, kind })) };
}
