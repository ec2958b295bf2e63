// Turns caller-supplied workspace-relative paths into real files inside the workspace, and real
// paths from language servers back into workspace-relative ones. Everything that resolves outside
// the workspace (after realpath, symlinks included) is refused.
import { readlinkSync } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { RunnerError } from "../errors.js";
import { changedAtMsOf, realPath, stampOf, statOf } from "./metadata.js";

export interface ResolvedFile {
  /** Workspace-relative POSIX path, normalised. */
  readonly path: string;
  /** Absolute real path on disk. */
  readonly absolute: string;
  /** Bytes. */
  readonly size: number;
  /**
   * Identity of the file's content at the time it was resolved: inode, size, modification and
   * change times in ns. Equal stamps mean the content was not written in between (ctime cannot be
   * set back, so even a copy that restores an old mtime changes it).
   */
  readonly stamp: string;
  /** The later of its modification and change times, in ms since the epoch. */
  readonly changedAtMs: number;
}

/** A file that does not exist yet. */
export interface NewFile {
  /** Workspace-relative POSIX path, normalised. */
  readonly path: string;
  /** Absolute path under the real path of its nearest existing folder. */
  readonly absolute: string;
  /** Folders to create first, outermost first. */
  readonly missingFolders: readonly string[];
}

function outside(path: string): RunnerError {
  return new RunnerError(
    "OUTSIDE_WORKSPACE",
    `'${path}' is outside the workspace: give a path relative to the workspace root, without '..' or a leading '/'`,
  );
}

/** A path that is written inside the workspace but leads out of it through a symbolic link. */
function linkedOut(path: string): RunnerError {
  return new RunnerError(
    "OUTSIDE_WORKSPACE",
    `'${path}' is outside the workspace: a symbolic link on its way leads out of it; name a file inside the workspace`,
  );
}

/**
 * The error a file-system call on a caller's path failed with, as the caller should see it: gone
 * (NOT_FOUND), a symlink loop (INVALID_ARGUMENT), or refused because it leads out of the workspace
 * — a confined worker is refused what lies outside its tenant's folder (EACCES, EPERM), and a
 * checked read finds its folder swapped (EXDEV) — OUTSIDE_WORKSPACE. Anything else unchanged.
 */
export function pathError(error: unknown, shown: string): unknown {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") {
    return new RunnerError("NOT_FOUND", `no such file in the workspace: '${shown}'; check the path`);
  }
  if (code === "ELOOP") {
    return new RunnerError("INVALID_ARGUMENT", `'${shown}' is a loop of symbolic links; name a file, or fix the links`);
  }
  if (code === "EACCES" || code === "EPERM" || code === "EXDEV") return outside(shown);
  return error;
}

/** Symbolic links followed before a path counts as a loop (Linux's own limit, MAXSYMLINKS). */
const MAX_LINKS = 40;

/**
 * Where an absolute path leads with every symbolic link on the way followed, as far as its
 * components exist: unlike realpath(3) it does not fail on a link whose target is missing. A
 * confined worker cannot see another tenant's folder, so a link into it looks dangling there;
 * followed this way it still names where it points. Undefined on a loop.
 */
export function linkedPath(absolute: string): string | undefined {
  let rest = absolute.split(sep).filter((part) => part !== "" && part !== ".");
  let current: string = sep;
  let links = 0;
  while (rest.length > 0) {
    const [name = "", ...after] = rest;
    rest = after;
    if (name === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, name);
    let target: string | undefined;
    try {
      target = readlinkSync(next);
    } catch {
      // Not a link (EINVAL), or missing (ENOENT, ENOTDIR): taken as it is written.
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) return undefined;
    if (isAbsolute(target)) current = sep;
    rest = [...target.split(sep).filter((part) => part !== "" && part !== "."), ...rest];
  }
  return current;
}

export function isInside(root: string, absolute: string): boolean {
  const rel = relative(root, absolute);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

export class WorkspacePaths {
  private constructor(
    /** Real path of the workspace root. */
    readonly root: string,
  ) {}

  static async open(dir: string): Promise<WorkspacePaths> {
    return new WorkspacePaths(realPath(dir));
  }

  /** Validates a caller's path and finds the regular file it names. */
  async resolveFile(path: string): Promise<ResolvedFile> {
    const { normalised, candidate } = this.lexicalPath(path);
    let real: string;
    try {
      real = realPath(candidate);
    } catch (error) {
      throw this.leadsOut(candidate) ? linkedOut(path) : pathError(error, normalised);
    }
    if (!isInside(this.root, real)) throw linkedOut(path);
    const info = statOf(real);
    if (!info) throw new RunnerError("NOT_FOUND", `no such file in the workspace: '${normalised}'; check the path`);
    if (!info.isFile()) {
      throw new RunnerError("INVALID_ARGUMENT", `'${normalised}' is not a regular file; name a source file`);
    }
    return {
      path: normalised.replace(/^\.\//, ""),
      absolute: real,
      size: Number(info.size),
      stamp: stampOf(info),
      changedAtMs: changedAtMsOf(info),
    };
  }

  /**
   * Validates the path of a file about to be created (a rename target): inside the workspace,
   * its nearest existing folder inside too (symlinks resolved), and nothing there yet.
   */
  async resolveNewFile(path: string): Promise<NewFile> {
    const { normalised, candidate } = this.lexicalPath(path);
    if (await lstat(candidate).catch(() => undefined)) {
      throw new RunnerError("INVALID_ARGUMENT", `'${normalised}' already exists; choose a new path or remove it first`);
    }
    if (this.leadsOut(candidate)) throw linkedOut(path);
    const missing: string[] = [basename(candidate)];
    let existing = dirname(candidate);
    for (;;) {
      const info = await stat(existing).catch(() => undefined);
      if (info) {
        if (!info.isDirectory()) {
          throw new RunnerError(
            "INVALID_ARGUMENT",
            `'${normalised}' lies under a file, not a folder; choose another path`,
          );
        }
        break;
      }
      if (await lstat(existing).catch(() => undefined)) {
        // It exists, and stat failed: a symbolic link to nothing (where it points was checked above).
        throw new RunnerError(
          "INVALID_ARGUMENT",
          `'${normalised}' lies under a symbolic link that leads nowhere; choose another path, or fix the link`,
        );
      }
      missing.unshift(basename(existing));
      existing = dirname(existing);
    }
    const realParent = await realpath(existing).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ELOOP") {
        throw new RunnerError("INVALID_ARGUMENT", `'${normalised}' lies under a loop of symbolic links; fix the links`);
      }
      // Gone meanwhile (a folder on the way moved): a missing folder, as any other.
      throw pathError(error, normalised);
    });
    if (!isInside(this.root, realParent)) throw linkedOut(path);
    const absolute = join(realParent, ...missing);
    const path_ = this.toWorkspacePath(absolute);
    if (path_ === undefined || path_ === "") throw outside(path);
    const missingFolders = missing.slice(0, -1).map((_, i) => join(realParent, ...missing.slice(0, i + 1)));
    return { path: path_, absolute, missingFolders };
  }

  /**
   * The absolute path a workspace-relative path names, checked without touching the disk (the
   * file may be gone): for paths announced by writers. Throws OUTSIDE_WORKSPACE / INVALID_ARGUMENT.
   */
  announcedPath(path: string): string {
    return this.lexicalPath(path).candidate;
  }

  /** Whether a path that may not resolve leads out of the workspace through a symbolic link on its way. */
  private leadsOut(candidate: string): boolean {
    const linked = linkedPath(candidate);
    return linked !== undefined && !isInside(this.root, linked);
  }

  private lexicalPath(path: string): { normalised: string; candidate: string } {
    if (typeof path !== "string" || path.trim() === "") {
      throw new RunnerError("INVALID_ARGUMENT", "'file' is required: give a path relative to the workspace root");
    }
    if (path.includes("\0")) throw new RunnerError("INVALID_ARGUMENT", "'file' contains a NUL character");
    const posixPath = path.replaceAll("\\", "/");
    if (posixPath.startsWith("/") || /^[a-zA-Z]:/.test(posixPath)) throw outside(path);
    const normalised = posix.normalize(posixPath);
    if (normalised === ".." || normalised.startsWith("../")) throw outside(path);
    const candidate = resolve(this.root, normalised);
    if (!isInside(this.root, candidate)) throw outside(path);
    return { normalised, candidate };
  }

  /** Workspace-relative path for an absolute path a server reported, or undefined when outside. */
  toWorkspacePath(absolute: string): string | undefined {
    if (!isInside(this.root, absolute)) return undefined;
    return relative(this.root, absolute).split(sep).join("/");
  }

  /**
   * Workspace-relative path of a `file:` URI (a server's, or an open document's), or undefined when
   * it is not a file URI, cannot be read as one, or lies outside the workspace.
   */
  pathOfUri(uri: string): string | undefined {
    if (!uri.startsWith("file:")) return undefined;
    try {
      return this.toWorkspacePath(fileURLToPath(uri));
    } catch {
      return undefined; // a file URL with a host, or an encoded "/"
    }
  }

  /**
   * toWorkspacePath for a file a language server named: its real path (symlinks resolved) must be
   * inside the workspace too. A symlink pointing out names someone else's file, whose contents a
   * server may have read; such a location is not the workspace's to show. A file that no longer
   * exists is judged by its path alone.
   */
  async toWorkspaceFile(absolute: string): Promise<string | undefined> {
    const path = this.toWorkspacePath(absolute);
    if (path === undefined) return undefined;
    let real: string | undefined;
    try {
      real = realPath(absolute);
    } catch {
      real = undefined;
    }
    return real === undefined || isInside(this.root, real) ? path : undefined;
  }
}
