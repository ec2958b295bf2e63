// Which files a check looks at: named ones (--files, or - for a list on stdin), the files changed
// since a git ref (--changed-since), or the whole workspace. Paths become workspace-relative POSIX
// paths; renames are remembered so that a renamed file is compared with its old self.
import { stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { listSourceFiles } from "@lspmesh/lsp-runner";
import { UsageError } from "../usage.js";
import type { Git } from "./git.js";

export interface Targets {
  kind: "files" | "changed" | "workspace";
  files: string[];
  /** Paths git lists that are no regular file here (submodules, links to folders, dangling links). */
  notFiles: string[];
  /** Head path → base path, for files git saw renamed (or copied) since the base. */
  renames: Map<string, string>;
}

export interface TargetRequest {
  dir: string;
  /** Named files; "-" alone reads the list from stdin (one path per line). */
  files?: string[];
  /** Commit to list changes against (already resolved to the fork point). */
  changedSince?: string;
  /** Commit of the base, whose renames are followed (already resolved). */
  baseCommit?: string;
}

export async function selectTargets(
  request: TargetRequest,
  git: Git | undefined,
  readStdin: () => Promise<string>,
): Promise<Targets> {
  let kind: Targets["kind"];
  let files: string[];
  const renames = new Map<string, string>();
  if (request.files) {
    kind = "files";
    const named = request.files.length === 1 && request.files[0] === "-" ? parseList(await readStdin()) : request.files;
    files = named.map((file) => workspacePath(request.dir, file));
  } else if (request.changedSince) {
    kind = "changed";
    const changes = await git!.changesSince(request.changedSince);
    files = changes.map((change) => change.file);
    if (request.changedSince === request.baseCommit) {
      for (const change of changes) if (change.baseFile) renames.set(change.file, change.baseFile);
    }
  } else {
    kind = "workspace";
    // Outside git: every file but dependency, build and hidden folders.
    files = git
      ? await git.listFiles()
      : (await listSourceFiles(request.dir, undefined, Number.POSITIVE_INFINITY)).files;
  }
  if (request.baseCommit && !(kind === "changed" && request.changedSince === request.baseCommit)) {
    for (const change of await git!.changesSince(request.baseCommit)) {
      if (change.baseFile) renames.set(change.file, change.baseFile);
    }
  }
  const unique = [...new Set(files)].sort();
  if (kind === "files") return { kind, files: unique, notFiles: [], renames };
  // What git lists is on this disk: anything that is not a regular file is not source to check.
  const regular = await Promise.all(
    unique.map((file) =>
      stat(join(request.dir, file)).then(
        (info) => info.isFile(),
        () => false,
      ),
    ),
  );
  return {
    kind,
    files: unique.filter((_, index) => regular[index]),
    notFiles: unique.filter((_, index) => !regular[index]),
    renames,
  };
}

/** One path per line; blank lines and surrounding spaces ignored (file lists from other tools). */
export function parseList(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** A named file as a workspace-relative POSIX path; names outside the workspace are refused. */
export function workspacePath(dir: string, file: string): string {
  const absolute = isAbsolute(file) ? file : join(dir, file);
  const path = relative(dir, absolute).split(sep).join("/");
  if (path === "" || path === ".." || path.startsWith("../") || isAbsolute(path)) {
    throw new UsageError(`'${file}' is not a file inside ${dir}: name files relative to the checked folder (--dir)`);
  }
  return path;
}
