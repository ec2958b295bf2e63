// A workspace folder held open, so that what an edit does in it cannot be redirected. A path is
// checked, then used: between the two a tenant can swap a folder of its workspace for a symlink
// into someone else's tree (rename with RENAME_EXCHANGE, in a loop). Opening the folder pins it;
// its real path is read from the open descriptor (inside the workspace, or refused); every later
// operation names `/proc/self/fd/<fd>/<name>`, which the kernel resolves to the pinned folder
// itself, whatever its path points at by then (openat(2) semantics without an openat in Node).
// Final components are never followed: files are opened with O_NOFOLLOW, and rename, link and
// unlink act on names. Where /proc is not mounted (not Linux), the folder's real path is used
// after the same check: racy, and only a single-tenant `serve` runs there.
import { existsSync } from "node:fs";
import { constants, type FileHandle, open } from "node:fs/promises";
import { join, posix } from "node:path";
import { RunnerError } from "../errors.js";
import { realPathOf } from "./metadata.js";
import { isInside, pathError } from "./workspacePaths.js";

const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;
/** O_NONBLOCK: a FIFO opens at once (then is refused); O_NOFOLLOW: a symlink is never opened through. */
const FILE_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

export class PinnedFolder {
  private closed = false;

  private constructor(
    /** Real path of the folder when it was pinned. */
    readonly real: string,
    private readonly prefix: string,
    private readonly handle: FileHandle,
  ) {}

  /**
   * Pins `absolute` (a folder) after checking that it lies inside `root` (a real path). Throws
   * OUTSIDE_WORKSPACE when it does not (a symlink out, swapped in or not), and lets ENOENT,
   * ENOTDIR, EACCES through.
   */
  static async open(root: string, absolute: string, shown: string): Promise<PinnedFolder> {
    const outside = () =>
      new RunnerError(
        "OUTSIDE_WORKSPACE",
        `'${shown}' is outside the workspace (a symbolic link leads out of it): give a path inside the workspace`,
      );
    const handle = await open(absolute, FOLDER_FLAGS).catch((error: unknown) => {
      // Gone, or (a confined worker) refused what lies outside its tenant's folder.
      throw pathError(error, shown);
    });
    const real = realPathOf(handle.fd, absolute);
    // The descriptor's own path where /proc is mounted; elsewhere the real path checked above.
    const prefix = existsSync("/proc/self/fd") ? `/proc/self/fd/${handle.fd}` : real;
    if (!isInside(root, real)) {
      await handle.close();
      throw outside();
    }
    return new PinnedFolder(real, prefix, handle);
  }

  /** A path naming `name` in this folder, whatever the folder's own path points at now. */
  path(name: string): string {
    if (this.closed) throw new Error("PinnedFolder used after close()");
    return join(this.prefix, name);
  }

  /**
   * The bytes and mode of the regular file `name`, opened never through a symlink and never
   * blocking on a FIFO: one swapped in since the path was checked is INVALID_ARGUMENT, one gone
   * NOT_FOUND (`shown` names it).
   */
  async readFile(name: string, shown = name): Promise<{ bytes: Buffer; mode: number }> {
    const notRegular = () =>
      new RunnerError(
        "INVALID_ARGUMENT",
        `'${shown}' is not a regular file (it changed while it was read); name a source file`,
      );
    const file = await open(this.path(name), FILE_FLAGS).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ELOOP") throw notRegular();
      if (error.code === "ENOENT") {
        throw new RunnerError("NOT_FOUND", `no such file in the workspace: '${shown}'; check the path`);
      }
      throw error;
    });
    try {
      const info = await file.stat();
      if (!info.isFile()) throw notRegular();
      return { bytes: await file.readFile(), mode: info.mode };
    } finally {
      await file.close();
    }
  }

  /** Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/** The folder of a workspace-relative POSIX path ("" for the root). */
export function folderOf(path: string): string {
  const folder = posix.dirname(path);
  return folder === "." ? "" : folder;
}

/** The folders one edit works in, each pinned once, by workspace-relative path ("" = the root). */
export class PinnedFolders {
  private readonly pinned = new Map<string, Promise<PinnedFolder>>();

  constructor(private readonly root: string) {}

  /** The pinned folder at `relative` (POSIX, inside the root). */
  folder(relative: string): Promise<PinnedFolder> {
    const key = relative === "." ? "" : relative;
    let folder = this.pinned.get(key);
    if (!folder) {
      folder = PinnedFolder.open(this.root, join(this.root, key), key || ".");
      // A failed pin is tried again next time (the folder may be created in between).
      folder.catch(() => this.pinned.delete(key));
      this.pinned.set(key, folder);
    }
    return folder;
  }

  /** The path naming the workspace-relative file `relative` through its pinned folder. */
  async pathOf(relative: string): Promise<string> {
    return (await this.folder(folderOf(relative))).path(posix.basename(relative));
  }

  /** The path naming `name` in the pinned folder of the workspace-relative file `relative`. */
  async siblingOf(relative: string, name: string): Promise<string> {
    return (await this.folder(folderOf(relative))).path(name);
  }

  /** Unpins a folder (before it is removed, or after it was created, to pin it afresh). */
  async forget(relative: string): Promise<void> {
    const folder = this.pinned.get(relative);
    this.pinned.delete(relative);
    await (await folder?.catch(() => undefined))?.close();
  }

  /** Idempotent. */
  async close(): Promise<void> {
    const all = [...this.pinned.values()];
    this.pinned.clear();
    await Promise.all(all.map(async (folder) => (await folder.catch(() => undefined))?.close()));
  }
}
