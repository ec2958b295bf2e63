// File metadata on the query path, asked synchronously. Every query resolves its file (realpath,
// stat) and every location it returns (realpath, and the file's lines for snippets); through
// fs/promises each of those is a round trip through libuv's thread pool, and a small file read is
// four (open, fstat, read, close). On a loaded 2-core machine that bookkeeping cost more CPU than
// the language server's own answer. The calls below are answered from the kernel's inode and page
// caches in microseconds on local and block volumes. Large files are still read asynchronously.
import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { isAbsolute, relative, sep } from "node:path";

/** Files up to this size are read synchronously (bytes, default 512 KiB: well under a millisecond). */
const SYNC_READ_BYTES = 512 * 1024;

/** realpath(3) of `path`; throws like fs/promises rejects (ENOENT, ENOTDIR, …). */
export function realPath(path: string): string {
  return realpathSync.native(path);
}

/** stat of `path` in ns precision, or undefined when it does not exist. */
export function statOf(path: string): BigIntStats | undefined {
  return statSync(path, { bigint: true, throwIfNoEntry: false });
}

/** Whether `path` is a directory (symlinks followed); false when it is missing or cannot be read. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/**
 * Where a file opened for reading must turn out to lie, by the real path of the open descriptor
 * (/proc/self/fd): exactly at a real path resolved earlier, or anywhere below a real folder. A
 * folder on the way swapped for a symlink after the path was checked then fails the read with
 * code EXDEV instead of reading someone else's file.
 */
export type OpenedAt = { exactly: string } | { beneath: string };

/** The bytes of a file whose size is known from a stat just taken (a regular file: readRegularFile). */
export function readKnownFile(path: string, size: number | bigint, at?: OpenedAt): Buffer | Promise<Buffer> {
  return Number(size) <= SYNC_READ_BYTES ? readRegularFileSync(path, at) : readRegularFile(path, at);
}

/** The real path of an open descriptor (its path when /proc is not mounted: not Linux). */
export function realPathOf(fd: number, path: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return realPath(path);
  }
}

function checkOpenedAt(fd: number, path: string, at: OpenedAt | undefined): void {
  if (!at) return;
  const real = realPathOf(fd, path);
  const where = "exactly" in at ? at.exactly : at.beneath;
  const rel = relative(where, real);
  const fine =
    "exactly" in at
      ? real === at.exactly
      : rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
  if (!fine) throw Object.assign(new Error(`${path} is no longer where it was checked`), { code: "EXDEV" });
}

/** O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

function notRegular(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`not a regular file: ${path}`), { code: "ENOTREG" });
}

/**
 * The bytes of a regular file. A workspace may hold (or swap in, after any stat) a FIFO, socket or
 * device where a file is expected; reading one would hold a thread of libuv's pool until someone
 * writes to it. So the file is opened without blocking and checked after opening (fstat): anything
 * but a regular file is refused with code ENOTREG, and never read.
 */
export async function readRegularFile(path: string, at?: OpenedAt): Promise<Buffer> {
  const handle = await open(path, OPEN_FLAGS);
  try {
    if (!(await handle.stat()).isFile()) throw notRegular(path);
    checkOpenedAt(handle.fd, path, at);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** What readRegularFileBeneath found: the bytes, unless the file is larger than asked for. */
export interface BeneathRead {
  bytes: Buffer | undefined;
  size: number;
  mtimeMs: number;
}

/**
 * readRegularFile for a path inside `root` (a real path) whose folders a tenant may swap for
 * symlinks at any moment: the file itself is never a symlink (O_NOFOLLOW), and the file opened
 * must lie inside `root` by its descriptor's real path (/proc/self/fd), or it is refused with code
 * EXDEV and never read. Files larger than `maxBytes` are not read (`bytes` undefined).
 */
export async function readRegularFileBeneath(root: string, path: string, maxBytes: number): Promise<BeneathRead> {
  const handle = await open(path, OPEN_FLAGS | constants.O_NOFOLLOW);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(path);
    checkOpenedAt(handle.fd, path, { beneath: root });
    const bytes = info.size > maxBytes ? undefined : await handle.readFile();
    return { bytes, size: info.size, mtimeMs: info.mtimeMs };
  } finally {
    await handle.close();
  }
}

/** readRegularFile, synchronously (small files on the query path). */
export function readRegularFileSync(path: string, at?: OpenedAt): Buffer {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    if (!fstatSync(fd).isFile()) throw notRegular(path);
    checkOpenedAt(fd, path, at);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Identity of a file's content: inode, size, modification and change times in ns. Equal stamps
 * mean the content was not written in between (ctime cannot be set back, so even a copy that
 * restores an old mtime changes it).
 */
export function stampOf(info: BigIntStats): string {
  return `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** stampOf with the device: which file it is on the whole machine, not only on its volume. */
export function identityOf(info: BigIntStats): string {
  return `${info.dev}:${stampOf(info)}`;
}

/** A regular file as one open descriptor saw it. */
export interface OpenedFile {
  /** Its real path (symlinks resolved). */
  real: string;
  /** identityOf its stat. */
  identity: string;
  changedAtMs: number;
}

/**
 * The real path and identity of the regular file `path` leads to, both read from one open
 * descriptor (/proc/self/fd, fstat): a link swapped between two looks cannot pair one file's
 * identity with another file's real path. Undefined when it is not a regular file, cannot be
 * opened, or /proc is not mounted (not Linux). Call it only after a stat found a regular file: a
 * device is never opened on purpose.
 */
export function openedFile(path: string): OpenedFile | undefined {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd, { bigint: true });
    if (!info.isFile()) return undefined;
    return { real: readlinkSync(`/proc/self/fd/${fd}`), identity: identityOf(info), changedAtMs: changedAtMsOf(info) };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The later of a file's modification and change times, in ms since the epoch. */
export function changedAtMsOf(info: BigIntStats): number {
  return Math.max(Number(info.mtimeMs), Number(info.ctimeMs));
}

/**
 * A file changed less than this long (ms) before it was read may change again within the same
 * timestamp tick (coarse kernel clocks tick every 1–10 ms) without its stamp changing: its stamp is
 * not trusted, and it is read again next time (git's "racy" rule).
 */
export const RACY_WINDOW_MS = 100;

/** The stamp to remember for content read at `readAtMs`: undefined when it may be racy. */
export function trustedStamp(stamp: string, changedAtMs: number, readAtMs: number): string | undefined {
  return readAtMs - changedAtMs > RACY_WINDOW_MS ? stamp : undefined;
}
