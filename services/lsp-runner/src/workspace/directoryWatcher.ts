// Watches a workspace folder tree for file changes with one inotify watch per folder (fs.watch
// on each folder, not `recursive: true`, which on Linux also watches every file and every
// node_modules folder). Skipped folders (sourceFiles.ts) are not watched. Events are coalesced
// for debounceMs after the last one (at most maxDelayMs after the first) and classified by a
// stat when delivered.
import { type FSWatcher, watch } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { isSkippedDirectory } from "./sourceFiles.js";

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
  /** Told when a folder cannot be watched (limit reached, permission, inotify limits). */
  onWarning?: (message: string) => void;
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

  private constructor(private readonly options: DirectoryWatcherOptions) {}

  /** Starts watching every folder of the tree; resolves once all are watched. */
  static async start(options: DirectoryWatcherOptions): Promise<DirectoryWatcher> {
    const watcher = new DirectoryWatcher(options);
    await watcher.watchTree(options.root, []);
    return watcher;
  }

  get watchedDirectories(): number {
    return this.watchers.size;
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
    this.closed = true;
    clearTimeout(this.timer);
    this.pending.clear();
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  /** Watches dir and the folders below it; collects the files found into `found` (for new trees). */
  private async watchTree(dir: string, found: string[]): Promise<void> {
    if (this.closed || this.watchers.has(dir)) return;
    if (this.watchers.size >= (this.options.maxDirectories ?? 20_000)) {
      if (!this.warnedLimit) this.options.onWarning?.(`not watching below ${dir}: folder limit reached`);
      this.warnedLimit = true;
      return;
    }
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => this.onEvent(dir, _event, name));
      watcher.on("error", () => this.unwatchTree(dir));
      this.watchers.set(dir, watcher);
    } catch (error) {
      this.options.onWarning?.(`cannot watch ${dir}: ${(error as Error).message}`);
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

  private unwatchTree(dir: string): void {
    for (const [path, watcher] of this.watchers) {
      if (path === dir || path.startsWith(`${dir}/`)) {
        watcher.close();
        this.watchers.delete(path);
      }
    }
  }

  /**
   * Called for every inotify event, which a workspace can produce by the hundred thousand per
   * second (a folder renamed in a loop): it only records the path and the time. One timer per
   * batch, re-armed when it fires while events still come, never one timer per event.
   */
  private onEvent(dir: string, event: string, name: string | Buffer | null): void {
    if (this.closed || name === null) return;
    const path = `${dir}/${name.toString()}`;
    if (event === "rename") this.pending.set(path, true);
    else if (!this.pending.has(path)) this.pending.set(path, false);
    this.lastEventAt = Date.now();
    if (this.timer === undefined) {
      this.firstPendingAt = this.lastEventAt;
      this.arm(this.options.debounceMs ?? 100);
    }
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
        if (this.watchers.has(path) || isSkippedDirectory(name)) continue;
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
