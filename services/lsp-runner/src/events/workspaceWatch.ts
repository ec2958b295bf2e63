// Keeps one workspace's language sessions in step with its files: changes seen by the local
// watcher (inotify) and changes announced by writers on `lspmesh.fs.<tenant>.<workspace>` (the
// only way to see other machines' writes on network volumes) become
// `workspace/didChangeWatchedFiles` for every session, and open documents whose file changed are
// synced again (didChange; didClose when deleted), so the next request and diagnostics see them.
import { fileURLToPath, pathToFileURL } from "node:url";
import { type FileChangeKind, FileEventsError, type FileEventsReply, parseFileEvents } from "@lspmesh/events";
import type { FileEvent } from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import type { OpenDocument } from "../lsp/documents/openDocument.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { pullDiagnostics } from "../lsp/session/pullDiagnostics.js";
import { reloadClosedFiles } from "../lsp/session/tsserverReload.js";
import { DirectoryWatcher } from "../workspace/directoryWatcher.js";
import type { WatchAllowance } from "../workspace/watchBudget.js";
import { WorkspacePaths } from "../workspace/workspacePaths.js";
import type { Closeable, RunnerEventBus } from "./eventBus.js";

export interface WorkspaceWatchOptions {
  tenant: string;
  workspace: string;
  /** Real path of the workspace root. */
  root: string;
  bus: RunnerEventBus;
  runnerId: string;
  /** Watch the folder tree with inotify (off on network volumes, where only announcements work). */
  watchLocally: boolean;
  /** Quiet time before locally seen changes are applied, ms (default 100). */
  debounceMs?: number;
  /** The tenant's share of inotify watches. */
  allowance?: WatchAllowance;
  /** How often folders past it are polled, ms (default 5 000). */
  pollMs?: number;
  /** A change was seen on disk; it is applied after the quiet time (debounceMs). */
  onPending?: () => void;
  log: (entry: Record<string, unknown>) => void;
}

interface Change {
  absolute: string;
  kind: FileChangeKind;
}

const CHANGE_TYPE: Record<FileChangeKind, 1 | 2 | 3> = { created: 1, changed: 2, deleted: 3 };

/** Open documents whose diagnostics are pulled again after a change, most recently used first (default 20). */
const REPULL_DOCUMENTS = 20;
/**
 * After files were created or deleted on disk (or changed, for a server that cannot be told to
 * re-read them), how long a query waits (from when the change was applied) before it asks a server
 * that watches files itself, ms: typescript-language-server ignores didChangeWatchedFiles and
 * tsserver sees such a change through its own inotify watch, which a question sent right after the
 * write has been seen to overtake (an answer from before the write). Changed files are re-read by
 * tsserver on request instead (lsp/session/tsserverReload.ts).
 */
const SELF_WATCH_GRACE_MS = 50;
/** Time one re-pull may take, ms (default 30 000). */
const REPULL_TIMEOUT_MS = 30_000;

export class WorkspaceWatch {
  readonly sessions = new Set<LanguageSession>();
  private watcher: DirectoryWatcher | undefined;
  private subscription: Closeable | undefined;
  /** Applications run one at a time, in the order the changes were seen. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Sessions whose pulled diagnostics are being refreshed; true when another change came meanwhile. */
  private readonly repulling = new Map<LanguageSession, boolean>();
  /** When changes last went to a server that watches files by itself (Date.now() ms; 0 = never). */
  private selfWatchedChangeAt = 0;

  private constructor(
    private readonly options: WorkspaceWatchOptions,
    private readonly paths: WorkspacePaths,
  ) {}

  static async start(options: WorkspaceWatchOptions): Promise<WorkspaceWatch> {
    const watch = new WorkspaceWatch(options, await WorkspacePaths.open(options.root));
    watch.subscription = options.bus.subscribeFileEvents(options.tenant, options.workspace, (payload) =>
      watch.applyAnnounced(payload),
    );
    if (options.watchLocally) {
      try {
        watch.watcher = await DirectoryWatcher.start({
          root: watch.paths.root,
          debounceMs: options.debounceMs,
          allowance: options.allowance,
          pollMs: options.pollMs,
          ...(options.onPending ? { onPending: options.onPending } : {}),
          onChanges: (changes) => watch.apply(changes).then(() => undefined),
          onWarning: (message) => options.log({ level: "warn", msg: "workspace watcher", detail: message }),
        });
      } catch (error) {
        options.log({ level: "warn", msg: "workspace not watched; relying on announcements", error: String(error) });
      }
    }
    return watch;
  }

  /**
   * Resolves once every change seen or announced so far has been applied to the sessions. A file
   * written just before this call is already queued by the kernel (inotify), but reaches the
   * watcher only when the event loop next polls: two turns of the loop make sure one poll ran after
   * the call arrived, so an answer never misses a write that finished before it was asked.
   */
  async settle(): Promise<void> {
    if (this.watcher) {
      await nextLoopTurn();
      await nextLoopTurn();
    }
    await this.watcher?.flush();
    await this.queue;
    // A server that watches files by itself (tsserver) learns of a change to a file it holds
    // closed from its own watcher, not from the events sent it: give it that moment.
    const wait = this.selfWatchedChangeAt + SELF_WATCH_GRACE_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** Syncs every open document again (after a NATS outage, announcements may have been missed). */
  resyncOpenDocuments(): Promise<void> {
    return this.enqueue(async () => {
      for (const session of this.sessions) {
        for (const document of session.openDocuments()) await this.resync(session, document);
      }
    });
  }

  close(): void {
    this.watcher?.close();
    this.subscription?.close();
  }

  /** One announcement from a writer: validated, applied, answered. */
  private async applyAnnounced(payload: Uint8Array): Promise<FileEventsReply> {
    const reply: FileEventsReply = { v: 1, runner: this.options.runnerId, applied: 0, refused: [] };
    let changes: Change[] = [];
    try {
      for (const change of parseFileEvents(payload).changes) {
        try {
          changes.push({ absolute: this.paths.announcedPath(change.file), kind: change.kind });
        } catch (error) {
          reply.refused.push({ file: change.file.slice(0, 300), reason: (error as Error).message });
        }
      }
    } catch (error) {
      if (!(error instanceof FileEventsError)) throw error;
      reply.refused.push({ file: "", reason: error.message });
      changes = [];
    }
    if (reply.refused.length > 0) {
      this.options.log({ level: "warn", msg: "file events refused", workspace: this.options.workspace, ...reply });
    }
    reply.applied = await this.apply(changes);
    return reply;
  }

  private apply(changes: Change[]): Promise<number> {
    if (changes.length === 0) return Promise.resolve(0);
    return this.enqueue(async () => {
      const events: FileEvent[] = changes.map((c) => ({
        uri: pathToFileURL(c.absolute).href,
        type: CHANGE_TYPE[c.kind],
      }));
      for (const session of this.sessions) {
        if (!session.isAlive) continue;
        try {
          // Open documents first: the server owns no disk view of them, only what the runner sends.
          const open = new Set<string>();
          // Open documents an event names that are still open, synced with their files now.
          const synced = new Set<string>();
          for (const document of session.openDocuments()) {
            const path = fileURLToPath(document.uri);
            open.add(path);
            const named = changes.some((c) => path === c.absolute);
            if (named || changes.some((c) => path.startsWith(`${c.absolute}/`))) {
              const kept = await this.resync(session, document);
              if (kept && named) synced.add(document.uri);
            }
          }
          await session.didChangeWatchedFiles(events, synced);
          const closed = changes.filter((c) => !open.has(c.absolute));
          if (closed.length > 0 && !session.registrations.watchesFiles) {
            // Changed files are re-read by the server itself (tsserver) before the next question;
            // files created or deleted, or a server that cannot be told, leave it to its own watcher.
            const changed = closed.filter((c) => c.kind === "changed").map((c) => c.absolute);
            const told = changed.length === closed.length && (await reloadClosedFiles(session, changed));
            if (!told) this.selfWatchedChangeAt = Date.now();
          }
          if (session.pullsDiagnostics) this.repull(session);
        } catch (error) {
          // A session that died meanwhile is restarted by the next request, with fresh content.
          this.options.log({ level: "warn", msg: "file changes not applied to a session", error: String(error) });
        }
      }
      return changes.length;
    });
  }

  /**
   * Syncs one open document with its file; closes it when the file is gone or no longer servable.
   * True when it stays open, synced.
   */
  private async resync(session: LanguageSession, document: OpenDocument): Promise<boolean> {
    const path = this.paths.pathOfUri(document.uri);
    try {
      if (path === undefined) throw new RunnerError("OUTSIDE_WORKSPACE", "outside");
      // The event says the file changed: read it even if its stamp looks the same.
      await session.syncDocument(await this.paths.resolveFile(path), document.languageId, { reread: true });
      return true;
    } catch (error) {
      if (!(error instanceof RunnerError)) throw error;
      // Deleted, replaced by a link to outside, too large or binary now: the server forgets it.
      await session.closeDocument(document.uri);
      if (path !== undefined) this.options.bus.clearDiagnostics(this.options.tenant, this.options.workspace, path);
      return false;
    }
  }

  /**
   * Pull servers compute diagnostics only when asked: after a change, the most recently used open
   * documents are pulled again in the background, so that new results are published without a query.
   */
  private repull(session: LanguageSession): void {
    if (this.repulling.has(session)) {
      this.repulling.set(session, true);
      return;
    }
    this.repulling.set(session, false);
    void (async () => {
      do {
        this.repulling.set(session, false);
        for (const document of session.openDocuments().slice(-REPULL_DOCUMENTS).reverse()) {
          if (!session.isAlive) break;
          await pullDiagnostics(session, document, AbortSignal.timeout(REPULL_TIMEOUT_MS)).catch(() => undefined);
        }
      } while (this.repulling.get(session) && session.isAlive);
      this.repulling.delete(session);
    })();
  }

  private enqueue<T>(run: () => Promise<T>): Promise<T> {
    const result = this.queue.then(run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}

/** Resolves in the check phase of the event loop: after the poll phase of the turn it was called in or the next. */
function nextLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
