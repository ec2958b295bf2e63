// Lists a workspace's source files for workspace-wide operations, without following symlinks
// and without descending into dependency or build output folders.
import { readdir } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";

/** Dependency, VCS and build output folders: not listed, not watched. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  "node_modules",
  ".git",
  ".hg",
  ".svn",
  "dist",
  "build",
  "out",
  "target",
  ".venv",
  "venv",
  "__pycache__",
  ".turbo",
  ".next",
]);

/**
 * Workspace-relative POSIX paths of files whose extension is in `extensions` (every file when
 * undefined), at most `limit`.
 */
export async function listSourceFiles(
  root: string,
  extensions: ReadonlySet<string> | undefined,
  limit: number,
): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.shift()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!isSkippedDirectory(entry.name)) pending.push(path);
      } else if (entry.isFile() && (!extensions || extensions.has(extname(entry.name).toLowerCase()))) {
        if (files.length >= limit) return { files, truncated: true };
        files.push(relative(root, path).split(sep).join("/"));
      }
    }
  }
  return { files, truncated: false };
}

/** Folders neither listed nor watched: SKIPPED_DIRECTORIES and hidden ones. */
export function isSkippedDirectory(name: string): boolean {
  return SKIPPED_DIRECTORIES.has(name) || name.startsWith(".");
}
