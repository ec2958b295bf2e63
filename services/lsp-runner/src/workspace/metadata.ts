// File metadata on the query path, asked synchronously. Every query resolves its file (realpath,
// stat) and every location it returns (realpath, and the file's lines for snippets); through
// fs/promises each of those is a round trip through libuv's thread pool, and a small file read is
// four (open, fstat, read, close). On a loaded 2-core machine that bookkeeping cost more CPU than
// the language server's own answer. The calls below are answered from the kernel's inode and page
// caches in microseconds on local and block volumes. Large files are still read asynchronously.
import { type BigIntStats, readFileSync, realpathSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";

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

/** The bytes of a file whose size is known from a stat just taken. */
export function readKnownFile(path: string, size: number | bigint): Buffer | Promise<Buffer> {
  return Number(size) <= SYNC_READ_BYTES ? readFileSync(path) : readFile(path);
}
