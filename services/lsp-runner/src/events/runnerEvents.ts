// Wires language sessions to the event bus: state changes become status events, recorded
// diagnostics are published, and every workspace with sessions is watched (WorkspaceWatch).
// The language-server layer only emits SessionEvents; this is the one place that listens.
import type { StatusMessage } from "@lspmesh/events";
import type { WorkspaceRef } from "../engine/answers.js";
import type { PendingFileChanges } from "../engine/engineContext.js";
import type { LanguageSession, SessionEvent } from "../lsp/session/languageSession.js";
import type { WatchBudget } from "../workspace/watchBudget.js";
import { diagnosticsMessage, type SessionOrigin } from "./diagnosticsMessage.js";
import { EpochAnnouncer } from "./epochAnnouncer.js";
import type { Closeable, RunnerEventBus } from "./eventBus.js";
import { WorkspaceWatch } from "./workspaceWatch.js";

export interface RunnerEventsOptions {
  bus: RunnerEventBus;
  runnerId: string;
  /** Watch workspaces with inotify (default true); off where only announcements can be trusted. */
  watchLocally?: boolean;
  /** Quiet time before locally seen changes are applied, ms (default 100). */
  watchDebounceMs?: number;
  /** How often folders past a tenant's watch budget are polled, ms (default 5 000). */
  watchPollMs?: number;
  /** The tenants' shares of inotify watches (default: unbudgeted). */
  watchBudget?: WatchBudget;
  log?: (entry: Record<string, unknown>) => void;
}

export class RunnerEvents implements PendingFileChanges {
  private readonly watches = new Map<string, Promise<WorkspaceWatch | undefined>>();
  private readonly live = new Set<LanguageSession>();
  private readonly reconnect: Closeable;
  private readonly log: (entry: Record<string, unknown>) => void;
  private readonly epochs: EpochAnnouncer;
  private closed = false;

  constructor(private readonly options: RunnerEventsOptions) {
    this.log = options.log ?? (() => {});
    this.epochs = new EpochAnnouncer(options.bus, options.runnerId);
    this.reconnect = options.bus.onReconnect(() => {
      for (const watch of this.watches.values()) void watch.then((w) => w?.resyncOpenDocuments());
    });
  }

  /** Sessions running now (the registry's load). */
  get sessionCount(): number {
    return this.live.size;
  }

  /** For SessionManagerOptions.onSessionEvent. */
  readonly onSessionEvent = (origin: SessionOrigin, event: SessionEvent): void => {
    const { session } = event;
    switch (event.type) {
      case "state":
        if (!this.live.has(session) && !this.closed) {
          this.track(origin, session);
          this.epochs.announce(origin.tenant, origin.workspace, origin.language);
        }
        this.publishStatus(origin, session, event.state);
        return;
      case "content":
        this.epochs.announce(origin.tenant, origin.workspace, origin.language);
        return;
      case "diagnostics": {
        const message = diagnosticsMessage(origin, session, event.uri, event.stored);
        if (message) this.options.bus.publishDiagnostics(message);
        return;
      }
      case "closed":
        this.untrack(origin, session);
        this.epochs.announce(origin.tenant, origin.workspace, origin.language);
        this.publishStatus(origin, session, "stopped");
        return;
    }
  };

  async settle(ref: WorkspaceRef): Promise<void> {
    const watch = await this.watches.get(`${ref.tenant}/${ref.workspace}`);
    await watch?.settle();
  }

  /**
   * Stops watching one workspace now (its folder and its `lspmesh.fs` announcements), rather than
   * when its last session closes: it was deleted. True when it was watched.
   */
  async forget(ref: WorkspaceRef): Promise<boolean> {
    const id = `${ref.tenant}/${ref.workspace}`;
    const watch = this.watches.get(id);
    if (!watch) return false;
    this.watches.delete(id);
    (await watch)?.close();
    return true;
  }

  /** Stops watching every workspace. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    this.reconnect.close();
    const all = [...this.watches.values()];
    this.watches.clear();
    for (const watch of await Promise.all(all)) watch?.close();
  }

  private track(origin: SessionOrigin, session: LanguageSession): void {
    this.live.add(session);
    const id = `${origin.tenant}/${origin.workspace}`;
    let watch = this.watches.get(id);
    if (!watch) {
      watch = WorkspaceWatch.start({
        tenant: origin.tenant,
        workspace: origin.workspace,
        root: origin.root,
        bus: this.options.bus,
        runnerId: this.options.runnerId,
        watchLocally: this.options.watchLocally ?? true,
        debounceMs: this.options.watchDebounceMs,
        pollMs: this.options.watchPollMs,
        allowance: this.options.watchBudget?.of(origin.tenant),
        // A change seen on disk is announced at once, not after the quiet time before it is applied.
        onPending: () => this.epochs.announce(origin.tenant, origin.workspace, ""),
        log: this.log,
      }).catch((error) => {
        this.log({ level: "warn", msg: "workspace changes not followed", workspace: id, error: String(error) });
        return undefined;
      });
      this.watches.set(id, watch);
    }
    void watch.then((w) => w?.sessions.add(session));
  }

  private untrack(origin: SessionOrigin, session: LanguageSession): void {
    if (!this.live.delete(session)) return;
    const id = `${origin.tenant}/${origin.workspace}`;
    const watch = this.watches.get(id);
    void watch?.then((w) => {
      w?.sessions.delete(session);
      if ((!w || w.sessions.size === 0) && this.watches.get(id) === watch) {
        this.watches.delete(id);
        w?.close();
      }
    });
  }

  private publishStatus(origin: SessionOrigin, session: LanguageSession, state: StatusMessage["state"]): void {
    const progress = session.progress.summary();
    const lastError = session.lastError;
    this.options.bus.publishStatus({
      v: 1,
      tenant: origin.tenant,
      workspace: origin.workspace,
      language: origin.language,
      runner: this.options.runnerId,
      state,
      ...(progress ? { progress } : {}),
      ...(lastError ? { lastError } : {}),
      at: Date.now(),
    });
  }
}
