// The runner's symbol indexer: keeps a live index of every workspace it serves (the one it was
// started for, those named in requests, and those whose stored index names this runner), follows
// their files (inotify and `lspmesh.fs` announcements) and writes the indexes to the store.
import { parseFileEvents } from "@lspmesh/events";
import type { DocumentSymbol, WorkspaceRef } from "../engine/answers.js";
import type { Closeable, RunnerEventBus } from "../events/eventBus.js";
import type { LanguageRegistry } from "../lsp/languages/languageRegistry.js";
import { DEFAULT_MAX_FILE_BYTES } from "../lsp/session/serverDocuments.js";
import { DirectoryWatcher } from "../workspace/directoryWatcher.js";
import type { WatchBudget } from "../workspace/watchBudget.js";
import type { WorkspaceLocator } from "../workspace/workspaceLocator.js";
import { WorkspacePaths } from "../workspace/workspacePaths.js";
import type { AgentActivity } from "./agentActivity.js";
import { FileIndexer } from "./fileIndexer.js";
import { IndexScheduler } from "./indexScheduler.js";
import { TypescriptSyntaxSource } from "./typescriptSymbols.js";
import { WorkspaceIndex } from "./workspaceIndex.js";

export interface SymbolIndexLimits {
  /** Files indexed per workspace, at most (default 50 000). */
  maxFiles?: number;
  /** Declarations kept per file (default 5 000). */
  maxSymbolsPerFile?: number;
  /** Files larger than this are skipped and counted (bytes; default 4 MiB, the document limit). */
  maxFileBytes?: number;
}

export interface SymbolIndexerOptions extends SymbolIndexLimits {
  bus: RunnerEventBus;
  runnerId: string;
  /** Tenants this runner admits (a dedicated pool); undefined = any. */
  tenants?: readonly string[];
  locator: WorkspaceLocator;
  languages: LanguageRegistry;
  activity: AgentActivity;
  /** A language server's documentSymbol for one file (the engine's query). */
  documentSymbols: (ref: WorkspaceRef, file: string, signal: AbortSignal) => Promise<DocumentSymbol[]>;
  /** A workspace deleted in the control plane: never indexed, nor taken up again (default: none). */
  isDeleted?: (ref: WorkspaceRef) => boolean;
  /** Whether the workspace's server for a language runs now (indexing never starts one). */
  serverRunning: (ref: WorkspaceRef, language: string) => boolean;
  /** Watch indexed workspaces with inotify (default true). */
  watchLocally?: boolean;
  /** Quiet time before locally seen changes are indexed, ms (default 100). */
  debounceMs?: number;
  /** The tenants' shares of inotify watches (default: unbudgeted). */
  watchBudget?: WatchBudget;
  /** How often folders past a tenant's watch budget are polled, ms (default 5 000). */
  pollMs?: number;
  log?: (entry: Record<string, unknown>) => void;
}

/** Longest a file waits for agents' requests to end before it is indexed anyway, ms. */
const QUIET_WAIT_MS = 2_000;
/**
 * Before asking a server (the session agents use), no agent request may have ended for this long,
 * ms, waiting at most SERVER_QUIET_WAIT_MS: an agent's series of calls is not interleaved with
 * indexing's opening and closing of documents.
 */
const SERVER_IDLE_MS = 1_000;
const SERVER_QUIET_WAIT_MS = 30_000;
/** Longest a language server may take for one file's documentSymbol, ms. */
const SERVER_TIMEOUT_MS = 30_000;

interface Followed {
  index: WorkspaceIndex;
  watcher?: DirectoryWatcher;
  announcements?: Closeable;
  /** forget() stopped it while follow() was still starting it. */
  stopped?: boolean;
}

export class SymbolIndexer {
  private readonly workspaces = new Map<string, Promise<Followed | undefined>>();
  /** Followed workspaces by id from the moment their index exists (follow() may still be starting it). */
  private readonly followed = new Map<string, Followed>();
  private readonly scheduler: IndexScheduler;
  private readonly typescript = new TypescriptSyntaxSource();
  private readonly extensions: ReadonlySet<string>;
  private readonly log: (entry: Record<string, unknown>) => void;
  private closed = false;

  constructor(private readonly options: SymbolIndexerOptions) {
    this.log = options.log ?? (() => {});
    this.scheduler = new IndexScheduler(options.activity, QUIET_WAIT_MS, (error) =>
      this.log({ level: "warn", msg: "symbol indexing failed", error: String(error) }),
    );
    this.extensions = new Set(options.languages.extensions());
  }

  /** Starts indexing and following a workspace, once; resolves when its files are listed. */
  ensure(ref: WorkspaceRef): Promise<WorkspaceIndex | undefined> {
    const id = `${ref.tenant}/${ref.workspace}`;
    let followed = this.workspaces.get(id);
    if (!followed && this.options.isDeleted?.(ref)) return Promise.resolve(undefined);
    if (!followed) {
      const attempt: Promise<Followed | undefined> = this.follow(ref, () => this.workspaces.get(id) === attempt).catch(
        (error) => {
          this.log({ level: "warn", msg: "workspace not indexed", workspace: id, error: String(error) });
          if (this.workspaces.get(id) === attempt) this.workspaces.delete(id);
          return undefined;
        },
      );
      followed = attempt;
      this.workspaces.set(id, followed);
    }
    return followed.then((f) => f?.index);
  }

  /**
   * Stops indexing and following a workspace (it was deleted): resolves once no write of its index
   * is under way, so that the store's keys can be deleted after. True when it was followed.
   */
  async forget(ref: WorkspaceRef): Promise<boolean> {
    const id = `${ref.tenant}/${ref.workspace}`;
    const pending = this.workspaces.get(id);
    if (!pending) return false;
    this.workspaces.delete(id);
    // Not started yet: follow() sees it is no longer wanted and gives up before making an index.
    const followed = this.followed.get(id) ?? (await pending);
    if (followed) {
      if (this.followed.get(id) === followed) this.followed.delete(id);
      await stopFollowing(followed);
    }
    return true;
  }

  /** Takes up again the workspaces whose stored index names this runner (after a restart). */
  async catchUpOwned(): Promise<number> {
    const stored = await this.options.bus.symbolIndex.ownedBy(this.options.runnerId, this.options.tenants);
    const owned = stored.filter((ref) => !this.options.isDeleted?.(ref));
    await Promise.all(owned.map((ref) => this.ensure(ref)));
    return owned.length;
  }

  /** A workspace's server for a language became ready: its files indexed as text are read again from it. */
  serverReady(ref: WorkspaceRef, language: string): void {
    void this.workspaces
      .get(`${ref.tenant}/${ref.workspace}`)
      ?.then((followed) => followed?.index.reindexText(language));
  }

  /** Resolves once the workspace's index reflects every change seen so far (tests, benchmarks). */
  async settled(ref: WorkspaceRef): Promise<void> {
    const followed = await this.workspaces.get(`${ref.tenant}/${ref.workspace}`);
    if (!followed) return;
    await followed.watcher?.flush();
    await followed.index.idle();
  }

  /** Stops indexing and following every workspace. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const all = await Promise.all(this.workspaces.values());
    this.workspaces.clear();
    this.followed.clear();
    for (const followed of all) {
      followed?.index.close();
      followed?.watcher?.close();
      followed?.announcements?.close();
    }
    await this.scheduler.close();
    this.typescript.close();
  }

  /** `wanted`: false once forget() (or a newer ensure()) replaced this attempt. */
  private async follow(ref: WorkspaceRef, wanted: () => boolean): Promise<Followed | undefined> {
    const paths = await WorkspacePaths.open(await this.options.locator.locate(ref.tenant, ref.workspace));
    if (this.closed || !wanted()) return undefined;
    const { runnerId, bus } = this.options;
    const files = new FileIndexer({
      root: paths.root,
      languages: this.options.languages,
      serverRunning: (language) => this.options.serverRunning(ref, language),
      maxFileBytes: this.options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      maxSymbolsPerFile: this.options.maxSymbolsPerFile ?? 5_000,
      documentSymbols: (file, signal) => this.options.documentSymbols(ref, file, signal),
      serverQuiet: () => this.options.activity.quiet(SERVER_QUIET_WAIT_MS, SERVER_IDLE_MS),
      typescript: this.typescript,
      serverTimeoutMs: SERVER_TIMEOUT_MS,
    });
    const index: WorkspaceIndex = new WorkspaceIndex({
      ...ref,
      root: paths.root,
      runnerId,
      store: bus.symbolIndex,
      files,
      extensions: this.extensions,
      maxFiles: this.options.maxFiles ?? 50_000,
      wake: () => this.scheduler.wake(index),
      log: this.log,
    });
    const followed: Followed = { index };
    const id = `${ref.tenant}/${ref.workspace}`;
    this.followed.set(id, followed);
    // Followed before the listing, so that nothing changed meanwhile is missed.
    followed.announcements = bus.observeFileEvents(ref.tenant, ref.workspace, (payload) => {
      try {
        const changes = parseFileEvents(payload).changes.filter((change) => {
          try {
            paths.announcedPath(change.file);
            return true;
          } catch {
            return false; // outside the workspace: refused (the sessions' handler tells the writer)
          }
        });
        index.applyChanges(changes.map((change) => ({ path: change.file, kind: change.kind })));
      } catch {
        // Malformed: the sessions' handler answers the writer with the reason.
      }
    });
    if (this.options.watchLocally ?? true) {
      followed.watcher = await DirectoryWatcher.start({
        root: paths.root,
        debounceMs: this.options.debounceMs,
        allowance: this.options.watchBudget?.of(ref.tenant),
        pollMs: this.options.pollMs,
        onChanges: (changes) =>
          index.applyChanges(changes.map((change) => ({ path: change.absolute, kind: change.kind }))),
        onWarning: (message) => this.log({ level: "warn", msg: "symbol index watcher", detail: message }),
      }).catch((error) => {
        this.log({ level: "warn", msg: "workspace not watched for the index", error: String(error) });
        return undefined;
      });
      // Folders past the tenant's watch budget are polled: the index says so (and how often).
      const watcher = followed.watcher;
      if (followed.stopped) watcher?.close(); // forgotten while the watcher started
      if (watcher) index.pollingFrom(() => ({ folders: watcher.unwatchedFolders, everyMs: watcher.pollMs }));
    }
    await index.start();
    return followed;
  }
}

async function stopFollowing(followed: Followed): Promise<void> {
  followed.stopped = true;
  followed.watcher?.close();
  followed.announcements?.close();
  await followed.index.stop();
}
