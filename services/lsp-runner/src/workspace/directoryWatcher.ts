// Watches a workspace folder tree for file changes with one inotify watch per folder (fs.watch
// on each folder, not `recursive: true`, which on Linux also watches every file and every
// node_modules folder). Skipped folders (sourceFiles.ts) are not watched. Events are coalesced
// for debounceMs after the last one (at most maxDelayMs after the first) and classified by a
// stat when delivered. A folder that cannot be watched (the tenant's watch budget spent, the
// folder limit reached, the kernel out of watches) is polled instead, with everything below it.
// A folder whose events come faster than a checkout or a build makes them (a folder renamed in a
// loop: hundreds of thousands per second, which starve the event loop's timers) has its watch
// paused, with a growing backoff; what changed in it meanwhile is found by comparing its entries.
import {
  closeSync,
  constants,
  existsSync,
  type FSWatcher,
  lstatSync,
  openSync,
  readdirSync,
  realpathSync,
  type Stats,
  watch,
} from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { realPathOf } from "./metadata.js";
import { isSkippedDirectory } from "./sourceFiles.js";
import type { WatchAllowance } from "./watchBudget.js";
import { isInside } from "./workspacePaths.js";

/** Files and folders one poll looks at, at most, over all unwatched folders (50 000 and 20 000). */
const MAX_POLLED_FILES = 50_000;
const MAX_POLLED_FOLDERS = 20_000;
/** A paused folder's first pause, ms; each storm soon after doubles it, up to the longest (1 s, 30 s). */
const FIRST_PAUSE_MS = 1_000;
const LONGEST_PAUSE_MS = 30_000;
/** A folder calm for this long after a pause starts again from the first pause, ms (60 s). */
const CALM_RESET_MS = 60_000;
/** A folder opened to be watched: never through a final symlink. */
const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Whether a watch can name an open descriptor (Linux): the folder checked is the folder watched. */
const PROC_FDS = existsSync("/proc/self/fd");

export type WatchedChangeKind = "created" | "changed" | "deleted";

export interface WatchedChange {
  /** Absolute path under the watched root. */
  absolute: string;
  kind: WatchedChangeKind;
}

export interface DirectoryWatcherOptions {
  root: string;
  /** Quiet time before a batch is delivered, ms (default 100). */
  debounceMs?: number;
  /** Longest a change waits while events keep coming, ms (default 1 000). */
  maxDelayMs?: number;
  /** Folders watched, at most (default 20 000); deeper trees are left to writers' announcements. */
  maxDirectories?: number;
  /** Receives each batch; batches are delivered one at a time (the next waits for this promise). */
  onChanges: (changes: WatchedChange[]) => Promise<void> | void;
  /** Told at the first event of a batch, before the quiet time: something changed and onChanges will follow. */
  onPending?: () => void;
  /** Told when a folder cannot be watched (limit reached, permission, inotify limits). */
  onWarning?: (message: string) => void;
  /** The tenant's share of the runner's inotify watches (default: unbudgeted). */
  allowance?: WatchAllowance;
  /** How often folders that cannot be watched are polled, ms (default 5 000). */
  pollMs?: number;
  /**
   * Events one folder may deliver in a second before its watch is paused (default 20 000: a
   * checkout of thousands of files stays well below it; a folder renamed in a loop does not).
   */
  stormEventsPerSecond?: number;
}

/** A folder whose watch is paused after an event storm. */
interface PausedFolder {
  timer: NodeJS.Timeout;
  /** Its entries when paused ("name" → "type:mtimeMs:size"), compared when it resumes. */
  entries: Map<string, string>;
}

/** Events counted for one folder in the current one-second window. */
interface EventRate {
  windowStart: number;
  count: number;
}

export class DirectoryWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  /** Paths with events since the last delivery; true when one was a "rename" (created/deleted/moved). */
  private readonly pending = new Map<string, boolean>();
  private timer: NodeJS.Timeout | undefined;
  private firstPendingAt = 0;
  private lastEventAt = 0;
  private delivering: Promise<void> = Promise.resolve();
  private closed = false;
  private warnedLimit = false;
  /** Folders not watched (with everything below them), polled instead. */
  private readonly unwatched = new Set<string>();
  /** What the last poll saw below unwatched folders: path → "mtimeMs:size". */
  private polled = new Map<string, string>();
  private pollTimer: NodeJS.Timeout | undefined;
  private polling = false;
  /** Folders whose watch is paused after a storm (still counted as watched). */
  private readonly paused = new Map<string, PausedFolder>();
  private readonly rates = new Map<string, EventRate>();
  /** The last pause of each folder that had one: its length and when it ended (for the backoff). */
  private readonly pauses = new Map<string, { pauseMs: number; endedAt: number }>();

  /** The root's real path: every watched folder's real path lies below it. */
  private readonly realRoot: string;

  private constructor(private readonly options: DirectoryWatcherOptions) {
    this.realRoot = realPathOrSelf(options.root);
  }

  /** Starts watching every folder of the tree; resolves once all are watched. */
  static async start(options: DirectoryWatcherOptions): Promise<DirectoryWatcher> {
    const watcher = new DirectoryWatcher(options);
    await watcher.watchTree(options.root, []);
    return watcher;
  }

  get watchedDirectories(): number {
    return this.watchers.size + this.paused.size;
  }

  /** Folders whose watch is paused after an event storm (0 normally). */
  get pausedFolders(): number {
    return this.paused.size;
  }

  /** Whether `dir`'s watch is paused after an event storm. */
  isPaused(dir: string): boolean {
    return this.paused.has(dir);
  }

  /** Folders polled instead of watched (0: every folder is watched). */
  get unwatchedFolders(): number {
    return this.unwatched.size;
  }

  /** How often unwatched folders are polled, ms. */
  get pollMs(): number {
    return this.options.pollMs ?? 5_000;
  }

  /** Delivers pending changes now; resolves once every batch seen so far was handled. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size > 0) {
      const batch = new Map(this.pending);
      this.pending.clear();
      this.delivering = this.delivering.then(() => this.deliver(batch)).catch(() => undefined);
    }
    return this.delivering;
  }

  /** Stops every watch and drops pending changes. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pollTimer);
    this.pending.clear();
    for (const watcher of this.watchers.values()) watcher.close();
    for (const folder of this.paused.values()) clearTimeout(folder.timer);
    this.options.allowance?.give(this.watchers.size + this.paused.size);
    this.watchers.clear();
    this.paused.clear();
    this.unwatched.clear();
  }

  /** Watches dir and the folders below it; collects the files found into `found` (for new trees). */
  private async watchTree(dir: string, found: string[]): Promise<void> {
    if (this.closed || this.isWatched(dir) || this.isPolled(dir)) return;
    if (this.watchedDirectories >= (this.options.maxDirectories ?? 20_000)) {
      await this.pollInstead(dir, found, "folder limit reached");
      return;
    }
    if (this.options.allowance && !this.options.allowance.take()) {
      await this.pollInstead(dir, found, "the tenant's watch budget is spent");
      return;
    }
    try {
      this.watchers.set(dir, this.watchFolder(dir));
    } catch (error) {
      this.options.allowance?.give();
      const code = (error as NodeJS.ErrnoException).code;
      // The kernel out of watches (ENOSPC) or descriptors: polled; anything else (gone, refused): skipped.
      if (code === "ENOSPC" || code === "EMFILE")
        await this.pollInstead(dir, found, "the kernel's inotify watches are spent");
      else this.options.onWarning?.(`cannot watch ${dir}: ${(error as Error).message}`);
      return;
    }
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!isSkippedDirectory(entry.name)) await this.watchTree(path, found);
      } else {
        found.push(path);
      }
    }
  }

  /**
   * Watches the folder `dir` names now, never a folder outside the workspace: a tenant can swap a
   * folder for a symlink out of it (in a loop), and inotify follows symlinks. The watch is put on
   * the descriptor openFolderInside checked (/proc/self/fd/N), so the folder checked is the one
   * watched. Throws ENOTDIR (not a folder, or outside), ELOOP (a symlink) or ENOENT.
   */
  private watchFolder(dir: string): FSWatcher {
    const fd = openFolderInside(this.realRoot, dir);
    try {
      const target = PROC_FDS ? `/proc/self/fd/${fd}` : dir;
      const watcher = watch(target, { persistent: false }, (_event, name) => this.onEvent(dir, _event, name));
      watcher.on("error", () => this.unwatchTree(dir));
      return watcher;
    } finally {
      closeSync(fd);
    }
  }

  private isWatched(dir: string): boolean {
    return this.watchers.has(dir) || this.paused.has(dir);
  }

  private unwatchTree(dir: string): void {
    for (const [path, watcher] of this.watchers) {
      if (path === dir || path.startsWith(`${dir}/`)) {
        watcher.close();
        this.watchers.delete(path);
        this.rates.delete(path);
        this.options.allowance?.give();
      }
    }
    for (const [path, folder] of this.paused) {
      if (path === dir || path.startsWith(`${dir}/`)) {
        clearTimeout(folder.timer);
        this.paused.delete(path);
        this.options.allowance?.give();
      }
    }
    for (const path of this.unwatched) {
      if (path === dir || path.startsWith(`${dir}/`)) this.unwatched.delete(path);
    }
  }

  /** Whether `dir` or a folder above it is polled (O(depth), however many folders are polled). */
  private isPolled(dir: string): boolean {
    if (this.unwatched.size === 0) return false;
    let path = dir;
    for (;;) {
      if (this.unwatched.has(path)) return true;
      const cut = path.lastIndexOf("/");
      if (path.length <= this.options.root.length || cut <= 0) return false;
      path = path.slice(0, cut);
    }
  }

  /** Polls `dir` and everything below it from now on; its files go to `found` (a new tree's). */
  private async pollInstead(dir: string, found: string[], why: string): Promise<void> {
    if (!this.warnedLimit) {
      this.options.onWarning?.(`not watching below ${dir} (${why}): polled every ${this.pollMs} ms instead`);
    }
    this.warnedLimit = true;
    this.unwatched.add(dir);
    const files = await this.listPolled([dir]);
    for (const [path, stamp] of files) {
      this.polled.set(path, stamp);
      found.push(path);
    }
    if (!this.pollTimer && !this.closed) {
      this.pollTimer = setInterval(() => void this.poll(), this.pollMs);
      this.pollTimer.unref();
    }
  }

  /** Compares unwatched folders with the last poll; differences become events like inotify's. */
  private async poll(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      const now = await this.listPolled([...this.unwatched]);
      for (const [path, stamp] of now) {
        if (this.polled.get(path) !== stamp) this.record(path, !this.polled.has(path));
      }
      for (const path of this.polled.keys()) if (!now.has(path)) this.record(path, true);
      this.polled = now;
    } finally {
      this.polling = false;
    }
  }

  private record(path: string, renamed: boolean): void {
    if (renamed) this.pending.set(path, true);
    else if (!this.pending.has(path)) this.pending.set(path, false);
    this.lastEventAt = Date.now();
    if (this.timer === undefined) {
      this.firstPendingAt = this.lastEventAt;
      this.arm(this.options.debounceMs ?? 100);
      this.options.onPending?.();
    }
  }

  /**
   * Files below `folders` (skipped folders left out, symlinks not followed), within
   * MAX_POLLED_FILES and MAX_POLLED_FOLDERS: beyond them, changes go unseen (a tenant with that
   * many folders past its budget is told its index may lag).
   */
  private async listPolled(folders: string[]): Promise<Map<string, string>> {
    const files = new Map<string, string>();
    const queue = [...folders];
    let visited = 0;
    while (queue.length > 0 && files.size < MAX_POLLED_FILES && visited++ < MAX_POLLED_FOLDERS && !this.closed) {
      const dir = queue.shift() as string;
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!isSkippedDirectory(entry.name)) queue.push(path);
        } else if (entry.isFile()) {
          const info = await lstat(path).catch(() => undefined);
          if (info) files.set(path, `${info.mtimeMs}:${info.size}`);
        }
      }
    }
    return files;
  }

  /**
   * Called for every inotify event, which a workspace can produce by the hundred thousand per
   * second (a folder renamed in a loop): it only records the path and the time. One timer per
   * batch, re-armed when it fires while events still come, never one timer per event.
   */
  private onEvent(dir: string, event: string, name: string | Buffer | null): void {
    if (this.closed || name === null) return;
    this.record(`${dir}/${name.toString()}`, event === "rename");
    let rate = this.rates.get(dir);
    if (!rate || this.lastEventAt - rate.windowStart >= 1_000) {
      rate = { windowStart: this.lastEventAt, count: 0 };
      this.rates.set(dir, rate);
    }
    if (++rate.count > (this.options.stormEventsPerSecond ?? 20_000)) this.pause(dir);
  }

  /**
   * Stops the storm reaching this process: the folder's watch is closed (its allowance kept) and
   * opened again after a pause that doubles while storms follow each other. Its entries are read
   * while the watch is still open (what changes before the read is seen by the watch, what changes
   * after it by comparing them with its entries when it resumes), so nothing made meanwhile is lost.
   * Synchronously, inside the event callback: libuv delivers inotify events until none is queued,
   * so while a storm outpaces this process the event loop never reaches an asynchronous read's
   * completion (a paused folder of n entries costs n lstat calls once, about 2 µs each).
   */
  private pause(dir: string): void {
    const watcher = this.watchers.get(dir);
    if (!watcher) return;
    const entries = folderEntries(this.realRoot, dir);
    watcher.close();
    this.watchers.delete(dir);
    this.rates.delete(dir);
    const last = this.pauses.get(dir);
    const pauseMs =
      last && Date.now() - last.endedAt < CALM_RESET_MS ? Math.min(last.pauseMs * 2, LONGEST_PAUSE_MS) : FIRST_PAUSE_MS;
    if (!last) {
      const limit = this.options.stormEventsPerSecond ?? 20_000;
      this.options.onWarning?.(
        `${dir} changes faster than ${limit} events a second: its watch is paused (${FIRST_PAUSE_MS}-${LONGEST_PAUSE_MS} ms at a time) and its changes found when it resumes`,
      );
    }
    this.pauses.set(dir, { pauseMs, endedAt: Date.now() + pauseMs });
    const timer = setTimeout(() => this.resume(dir), pauseMs);
    timer.unref();
    this.paused.set(dir, { timer, entries });
  }

  private resume(dir: string): void {
    const folder = this.paused.get(dir);
    if (!folder || this.closed) return;
    this.paused.delete(dir);
    try {
      this.watchers.set(dir, this.watchFolder(dir));
    } catch {
      // Gone or no longer a folder: delivering it reports it deleted and drops what was below it.
      this.options.allowance?.give();
      this.record(dir, true);
      return;
    }
    const before = folder.entries;
    const after = folderEntries(this.realRoot, dir);
    for (const [name, stamp] of after) if (before.get(name) !== stamp) this.record(`${dir}/${name}`, true);
    for (const name of before.keys()) if (!after.has(name)) this.record(`${dir}/${name}`, true);
  }

  /** Delivers once events paused for debounceMs, or maxDelayMs after the first of the batch. */
  private arm(waitMs: number): void {
    this.timer = setTimeout(() => {
      const now = Date.now();
      const quietAt = this.lastEventAt + (this.options.debounceMs ?? 100);
      const latest = this.firstPendingAt + (this.options.maxDelayMs ?? 1_000);
      if (now < quietAt && now < latest) this.arm(Math.min(quietAt, latest) - now);
      else void this.flush();
    }, waitMs);
    this.timer.unref();
  }

  private async deliver(batch: Map<string, boolean>): Promise<void> {
    const changes: WatchedChange[] = [];
    for (const [path, renamed] of batch) {
      if (this.closed) return;
      const info = await lstat(path).catch(() => undefined);
      if (!info) {
        this.unwatchTree(path);
        changes.push({ absolute: path, kind: "deleted" });
      } else if (info.isDirectory()) {
        const name = path.slice(path.lastIndexOf("/") + 1);
        if (this.isWatched(path) || isSkippedDirectory(name)) continue;
        // A folder moved or created: watch it, and report the files already inside as created.
        const found: string[] = [];
        await this.watchTree(path, found);
        changes.push({ absolute: path, kind: "created" });
        for (const file of found) changes.push({ absolute: file, kind: "created" });
      } else {
        changes.push({ absolute: path, kind: renamed ? "created" : "changed" });
      }
    }
    if (changes.length > 0 && !this.closed) await this.options.onChanges(changes);
  }
}

/**
 * Opens the folder `dir` names now (never through a final symlink) after checking, on the
 * descriptor, that its real path lies inside `realRoot`. Throws ENOTDIR (not a folder, or outside),
 * ELOOP (a symlink) or ENOENT. The caller closes the descriptor.
 */
function openFolderInside(realRoot: string, dir: string): number {
  const fd = openSync(dir, FOLDER_FLAGS);
  if (!isInside(realRoot, realPathOf(fd, dir))) {
    closeSync(fd);
    throw Object.assign(new Error(`${dir} leads out of the workspace`), { code: "ENOTDIR" });
  }
  return fd;
}

/**
 * A folder's entries: name → "type:mtimeMs:size" (links not followed); empty when it cannot be
 * read or lies outside the workspace. Read through the checked descriptor, so a folder swapped for
 * a symlink out never has the outside folder's names read. Synchronous: a pause reads them inside
 * the event that crossed the limit, a resume while a storm may still go on (libuv delivers inotify
 * events until none is queued, so an asynchronous read could wait for as long as the storm lasts).
 * n lstat calls, about 2 µs each.
 */
function folderEntries(realRoot: string, dir: string): Map<string, string> {
  const entries = new Map<string, string>();
  let fd: number;
  try {
    fd = openFolderInside(realRoot, dir);
  } catch {
    return entries;
  }
  try {
    const base = PROC_FDS ? `/proc/self/fd/${fd}` : dir;
    for (const name of readdirSync(base)) {
      try {
        const info = lstatSync(`${base}/${name}`, { throwIfNoEntry: false });
        if (info) entries.set(name, entryStamp(info));
      } catch {
        // Gone or unreadable meanwhile: compared as absent.
      }
    }
  } catch {
    // The folder unreadable: no entries.
  } finally {
    closeSync(fd);
  }
  return entries;
}

function realPathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

const entryStamp = (info: Stats) => `${info.mode & 0o170000}:${info.mtimeMs}:${info.size}`;
