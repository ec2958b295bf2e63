// list_files: the workspace's files (ripgrep's walk: .gitignore/.ignore honoured unless asked,
// .git never, symlinks not followed), filtered by globs, sorted by path, paged, with sizes.
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { walkFiles } from "./ripgrep.js";

/** Paths collected before the listing stops (the total is then a lower bound), default 100 000. */
export const LIST_CAP = 100_000;
export const LIST_DEFAULT_LIMIT = 200;
export const LIST_MAX_LIMIT = 5_000;

export interface FileListQuery {
  root: string;
  globs: readonly string[];
  includeIgnored: boolean;
  limit: number;
  offset: number;
  signal?: AbortSignal | undefined;
}

export interface FileListAnswer {
  files: Array<{ file: string; size: number }>;
  total: number;
  totalAtLeast: boolean;
  note: string;
}

export async function listFiles(query: FileListQuery): Promise<FileListAnswer> {
  const paths: string[] = [];
  const { root, includeIgnored, globs, signal } = query;
  const outcome = await walkFiles({
    root,
    includeIgnored,
    globs,
    signal,
    onFile: (file) => paths.push(file) < LIST_CAP,
  });
  paths.sort();
  const limit = Math.min(query.limit || LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT);
  const page = paths.slice(query.offset, query.offset + limit);
  // lstat: a path swapped for a symlink since the walk is sized as the link, never followed.
  const files = await Promise.all(
    page.map(async (file) => ({
      file,
      size: Number((await lstat(join(query.root, file)).catch(() => undefined))?.size ?? 0),
    })),
  );
  const notes: string[] = [];
  if (outcome.stopped)
    notes.push(`the listing stopped at ${LIST_CAP} files: the total is a lower bound; narrow it with globs`);
  if (outcome.stderr.trim() !== "")
    notes.push(`some folders could not be read: ${outcome.stderr.trim().split("\n").slice(0, 3).join("; ")}`);
  return { files, total: paths.length, totalAtLeast: outcome.stopped, note: notes.join("; ") };
}
