// One workspace's symbol index, kept live: built (or caught up from what the store holds, by each
// file's mtime and size) in the background one file at a time, then updated for the files that
// change. Every file's declarations are written to the store as they are indexed; the meta entry
// says how far the index is (state, progress, epoch, counts).
import { lstat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { SymbolIndexFileEntry, SymbolIndexMeta, SymbolIndexSource, SymbolIndexWriter } from "@lspmesh/events";
import { listSourceFiles } from "../workspace/sourceFiles.js";
import type { FileIndexer, SkipReason } from "./fileIndexer.js";

export interface WorkspaceIndexOptions {
  tenant: string;
  workspace: string;
  /** Real path of the workspace root. */
  root: string;
  runnerId: string;
  store: SymbolIndexWriter;
  files: FileIndexer;
  /** Extensions of configured languages (lower case, with the dot). */
  extensions: ReadonlySet<string>;
  /** Files indexed per workspace, at most. */
  maxFiles: number;
  /** Asks the scheduler for a turn (there is work). */
  wake: () => void;
  log: (entry: Record<string, unknown>) => void;
}

export type ChangeKind = "created" | "changed" | "deleted";

interface KnownFile {
  language: string;
  mtimeMs: number;
  size: number;
  symbols: number;
  source: SymbolIndexSource;
}

/** Files indexed between two progress writes of the meta entry while building. */
const PROGRESS_EVERY_FILES = 50;
/** First pause before writing again what the store refused (NATS away), ms; doubles to 30 000. */
const RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export class WorkspaceIndex {
  private readonly known = new Map<string, KnownFile>();
  private readonly skipped = new Map<string, SkipReason>();
  private polled: (() => { folders: number; everyMs: number }) | undefined;
  /** Files to (re)index: changed ones first, then the build's. */
  private readonly changed = new Set<string>();
  private readonly building = new Set<string>();
  private state: SymbolIndexMeta["state"] = "indexing";
  private epoch = 0;
  private total = 0;
  private done = 0;
  private truncated = false;
  private builtAt: number | undefined;
  /** Store writes that failed, retried later: an entry, or null for a deletion. */
  private readonly unsynced = new Map<string, SymbolIndexFileEntry | null>();
  private metaUnsynced = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MS;
  private idleWaiters: Array<() => void> = [];
  private stepping = false;
  private closed = false;
  /** Store writes under way (stop() waits for them: none lands after it). */
  private readonly writing = new Set<Promise<void>>();

  constructor(private readonly options: WorkspaceIndexOptions) {}

  get ref(): { tenant: string; workspace: string } {
    return { tenant: this.options.tenant, workspace: this.options.workspace };
  }

  /** Loads what the store holds, lists the workspace and queues every file that differs. */
  async start(): Promise<void> {
    const stored = await this.options.store.read(this.options.tenant, this.options.workspace).catch((error) => {
      this.options.log({ level: "warn", msg: "stored symbol index not read; rebuilding", error: String(error) });
      return { meta: undefined, files: new Map<string, SymbolIndexFileEntry>() };
    });
    this.epoch = stored.meta?.epoch ?? 0;
    for (const [file, entry] of stored.files) {
      this.known.set(file, knownFileOf(entry));
    }
    // Searches see the workspace as indexing (not unindexed, which would ask a server) while it is listed.
    this.state = "indexing";
    await this.writeMeta();
    const listing = await listSourceFiles(this.options.root, this.options.extensions, this.options.maxFiles);
    this.truncated = listing.truncated;
    const onDisk = new Set(listing.files);
    for (const file of listing.files) {
      if (!this.options.files.sourceOf(file)) continue;
      const known = this.known.get(file);
      if (known && (await this.unchanged(file, known))) continue;
      this.building.add(file);
    }
    for (const file of this.known.keys()) if (!onDisk.has(file)) this.building.add(file);
    this.epoch = nextEpoch(this.epoch);
    this.total = this.building.size;
    this.done = 0;
    this.state = this.building.size > 0 ? "indexing" : "ready";
    if (this.state === "ready") this.builtAt = Date.now();
    this.options.log({
      level: "info",
      msg: "symbol index",
      tenant: this.options.tenant,
      workspace: this.options.workspace,
      stored: stored.files.size,
      toIndex: this.total,
    });
    await this.writeMeta();
    if (this.hasWork) this.options.wake();
  }

  /** Changes seen by the watcher or announced by writers (workspace-relative or absolute paths). */
  applyChanges(changes: ReadonlyArray<{ path: string; kind: ChangeKind }>): void {
    if (this.closed || changes.length === 0) return;
    this.epoch = nextEpoch(this.epoch);
    for (const { path, kind } of changes) {
      const file = this.relativeOf(path);
      if (file === undefined) continue;
      if (file === "") {
        for (const known of this.known.keys()) this.changed.add(known);
        void this.rescan("");
        continue;
      }
      // A folder: everything known under it, and (created or changed) everything now in it.
      const prefix = `${file}/`;
      for (const known of this.known.keys()) if (known.startsWith(prefix)) this.changed.add(known);
      if (this.options.files.sourceOf(file) || this.known.has(file)) this.changed.add(file);
      if (kind !== "deleted" && !this.options.files.sourceOf(file)) void this.rescan(file);
    }
    if (this.hasWork) this.options.wake();
  }

  /** Reads again the files of a language indexed as text (its server is running now). */
  reindexText(language: string): void {
    if (this.closed) return;
    for (const [file, known] of this.known) {
      if (known.source === "text" && known.language === language) this.changed.add(file);
    }
    if (this.hasWork) this.options.wake();
  }

  get hasWork(): boolean {
    return !this.closed && (this.changed.size > 0 || this.building.size > 0);
  }

  /** Indexes one file (the scheduler's turn); false when nothing was left to do. */
  async step(): Promise<boolean> {
    if (this.closed) return false;
    const file = first(this.changed) ?? first(this.building);
    if (file === undefined) {
      this.notifyIdle();
      return false;
    }
    this.stepping = true;
    const wasBuilding = this.building.delete(file);
    this.changed.delete(file);
    try {
      const outcome = await this.options.files.index(file, this.epoch);
      if (outcome.kind === "indexed") {
        this.skipped.delete(file);
        const { entry } = outcome;
        this.known.set(file, knownFileOf(entry));
        await this.write(file, entry);
      } else {
        if (outcome.kind === "skipped") {
          this.skipped.set(file, outcome.reason);
          this.options.log({
            level: "debug",
            msg: "file not indexed",
            file,
            reason: outcome.reason,
            detail: outcome.detail,
          });
        } else {
          this.skipped.delete(file);
        }
        if (this.known.delete(file)) await this.write(file, null);
      }
    } catch (error) {
      this.skipped.set(file, "failed");
      this.options.log({ level: "warn", msg: "file not indexed", file, error: String(error) });
    } finally {
      this.stepping = false;
    }
    if (wasBuilding) this.done++;
    const idle = this.changed.size === 0 && this.building.size === 0;
    if (idle) {
      if (this.state === "indexing") this.builtAt = Date.now();
      this.state = "ready";
      await this.writeMeta();
      this.notifyIdle();
    } else if (wasBuilding && this.done % PROGRESS_EVERY_FILES === 0) {
      await this.writeMeta();
    }
    return !idle;
  }

  /** Resolves once every change seen so far is indexed and written (or waiting for the store to come back). */
  idle(): Promise<void> {
    if (!this.hasWork && !this.stepping) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Where the watcher tells how many folders it polls instead of watching (SymbolIndexMeta.polled). */
  pollingFrom(polled: () => { folders: number; everyMs: number }): void {
    this.polled = polled;
  }

  /** The meta entry as it stands. */
  meta(): SymbolIndexMeta {
    const polled = this.polled?.();
    const skipped = { tooLarge: 0, binary: 0, failed: 0, overCap: this.truncated ? 1 : 0 };
    for (const reason of this.skipped.values()) skipped[reason]++;
    const sources: Partial<Record<SymbolIndexSource, number>> = {};
    let symbols = 0;
    for (const known of this.known.values()) {
      sources[known.source] = (sources[known.source] ?? 0) + 1;
      symbols += known.symbols;
    }
    return {
      v: 1,
      tenant: this.options.tenant,
      workspace: this.options.workspace,
      runner: this.options.runnerId,
      state: this.state,
      epoch: this.epoch,
      total: this.total,
      done: this.done,
      files: this.known.size,
      symbols,
      skipped,
      sources,
      updatedAt: Date.now(),
      ...(this.builtAt ? { builtAt: this.builtAt } : {}),
      ...(polled && polled.folders > 0 ? { polled } : {}),
    };
  }

  /** Stops indexing: nothing is written to the store from now on. */
  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.notifyIdle();
  }

  /** close(), then waits for the store writes under way: the store holds the last one afterwards. */
  async stop(): Promise<void> {
    this.close();
    while (this.writing.size > 0) await Promise.all(this.writing);
  }

  private async unchanged(file: string, known: KnownFile): Promise<boolean> {
    const info = await lstat(join(this.options.root, file)).catch(() => undefined);
    return info !== undefined && Math.trunc(info.mtimeMs) === known.mtimeMs && info.size === known.size;
  }

  /** Queues the files now under a folder (created or moved in). */
  private async rescan(folder: string): Promise<void> {
    const base = join(this.options.root, folder);
    const listing = await listSourceFiles(base, this.options.extensions, this.options.maxFiles);
    for (const file of listing.files) {
      const path = folder === "" ? file : `${folder}/${file}`;
      if (this.known.size + this.changed.size < this.options.maxFiles || this.known.has(path)) this.changed.add(path);
    }
    if (this.hasWork) this.options.wake();
  }

  /** Workspace-relative POSIX path of a change, or undefined when outside the workspace. */
  private relativeOf(path: string): string | undefined {
    if (!path.startsWith("/")) return path.replace(/\/+$/, "");
    const rel = relative(this.options.root, path);
    if (rel.startsWith("..") || rel.startsWith(sep)) return undefined;
    return rel.split(sep).join("/");
  }

  private write(file: string, entry: SymbolIndexFileEntry | null): Promise<void> {
    return this.tracked(() => this.writeNow(file, entry));
  }

  private writeMeta(): Promise<void> {
    return this.tracked(() => this.writeMetaNow());
  }

  /** Runs a store write unless closed, counted in `writing` while it runs. */
  private tracked(run: () => Promise<void>): Promise<void> {
    if (this.closed) return Promise.resolve();
    const writing = run().finally(() => this.writing.delete(writing));
    this.writing.add(writing);
    return writing;
  }

  private async writeNow(file: string, entry: SymbolIndexFileEntry | null): Promise<void> {
    const { store, tenant, workspace } = this.options;
    try {
      if (entry) await store.putFile(tenant, workspace, entry);
      else await store.deleteFile(tenant, workspace, file);
      this.unsynced.delete(file);
    } catch (error) {
      this.unsynced.set(file, entry);
      this.scheduleRetry(error);
    }
  }

  private async writeMetaNow(): Promise<void> {
    try {
      await this.options.store.putMeta(this.meta());
      this.metaUnsynced = false;
    } catch (error) {
      this.metaUnsynced = true;
      this.scheduleRetry(error);
    }
  }

  /** The store refused (NATS away): the latest value of each refused key is written again later. */
  private scheduleRetry(error: unknown): void {
    if (this.retryTimer || this.closed) return;
    this.options.log({
      level: "warn",
      msg: "symbol index not stored; retrying",
      workspace: this.options.workspace,
      error: String(error),
    });
    this.retryTimer = setTimeout(async () => {
      this.retryTimer = undefined;
      const pending = [...this.unsynced];
      for (const [file, entry] of pending) await this.write(file, entry);
      await this.writeMeta();
      this.retryMs = this.unsynced.size > 0 || this.metaUnsynced ? Math.min(this.retryMs * 2, MAX_RETRY_MS) : RETRY_MS;
    }, this.retryMs);
    this.retryTimer.unref();
  }

  private notifyIdle(): void {
    for (const wake of this.idleWaiters.splice(0)) wake();
  }
}

/** The next workspace epoch: ms since the Unix epoch, strictly greater than the previous one. */
export function nextEpoch(previous: number): number {
  return Math.max(Date.now(), previous + 1);
}

function first(set: ReadonlySet<string>): string | undefined {
  for (const value of set) return value;
  return undefined;
}

/** What the index remembers of a stored file: enough to tell a changed file and to count. */
function knownFileOf(entry: SymbolIndexFileEntry): KnownFile {
  return {
    language: entry.language,
    mtimeMs: entry.mtimeMs,
    size: entry.size,
    symbols: entry.symbols.length,
    source: entry.source,
  };
}
