// What the gateway knows of each workspace's epoch: a version that moves whenever a runner
// announces that the workspace's servers moved on (`lspmesh.epoch.<tenant>.<workspace>`), when
// this gateway sent it an edit, and for every workspace at once when the announcements may have
// been missed (NATS away). A remembered answer is served only while its workspace's version is the
// one it was asked under, and only answers of runners heard announcing for that workspace are
// remembered: a runner that cannot announce (older credentials) is never cached for.
import type { EpochMessage } from "@lspmesh/events";

/** Where announcements come from: NATS in a cluster. */
export interface EpochSource {
  /** Delivers every announcement, in order, synchronously as it is read (not queued). */
  subscribe(onMessage: (message: EpochMessage) => void): { close(): void };
  /**
   * Resolves once every announcement the backbone sent before this call has been delivered
   * (a NATS flush: PING/PONG on the same connection); rejects when it cannot tell.
   */
  flush(): Promise<void>;
  /** Told false when announcements may be missed from now on, true when they flow again. */
  onConnectionChange(listener: (connected: boolean) => void): { close(): void };
  close(): Promise<void>;
}

/** Workspaces tracked at most (least recently announced dropped first; default 50 000). */
export const MAX_TRACKED_WORKSPACES = 50_000;

interface WorkspaceState {
  version: number;
  /** Runners heard announcing for this workspace. */
  readonly runners: Set<string>;
}

export class WorkspaceEpochs {
  private readonly workspaces = new Map<string, WorkspaceState>();
  private next = 1;
  private connected = true;
  private readonly subscription: { close(): void };
  private readonly connection: { close(): void };
  /** The flush under way, and the one queued to start after it. */
  private inFlight: Promise<boolean> | undefined;
  private waiting: Promise<boolean> | undefined;
  private closed = false;

  constructor(
    private readonly source: EpochSource,
    private readonly maxWorkspaces = MAX_TRACKED_WORKSPACES,
  ) {
    this.subscription = source.subscribe((message) => this.heard(message));
    this.connection = source.onConnectionChange((connected) => {
      // Whatever was remembered may have missed announcements: moved on, everywhere.
      this.moveAll();
      this.connected = connected;
    });
  }

  /** Answers may be remembered (announcements flow). */
  get enabled(): boolean {
    return this.connected && !this.closed;
  }

  /** The workspace's version, or undefined when no runner was heard for it yet. */
  version(tenant: string, workspace: string): number | undefined {
    return this.workspaces.get(key(tenant, workspace))?.version;
  }

  /** The runner announces for this workspace (its answers may be remembered). */
  heardFrom(tenant: string, workspace: string, runner: string): boolean {
    return this.workspaces.get(key(tenant, workspace))?.runners.has(runner) ?? false;
  }

  /** The workspace moved on (this gateway sent it an edit). */
  invalidate(tenant: string, workspace: string): void {
    const state = this.workspaces.get(key(tenant, workspace));
    if (state) state.version = this.next++;
  }

  /**
   * Resolves true once every announcement sent before the call has been heard; false when that
   * cannot be told (the caller then asks the runner). Concurrent callers share one flush that
   * started after each of them called.
   */
  caughtUp(): Promise<boolean> {
    if (!this.enabled) return Promise.resolve(false);
    if (!this.inFlight) {
      this.inFlight = this.flushNow();
      return this.inFlight;
    }
    // The flush under way may have started before this call: join the one after it.
    if (!this.waiting) {
      this.waiting = this.inFlight.then(() => {
        this.waiting = undefined;
        this.inFlight = this.flushNow();
        return this.inFlight;
      });
    }
    return this.waiting;
  }

  /** Stops listening. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.subscription.close();
    this.connection.close();
    this.workspaces.clear();
    await this.source.close();
  }

  private flushNow(): Promise<boolean> {
    const flushed = this.source.flush().then(
      () => this.enabled,
      () => false,
    );
    const done: Promise<boolean> = flushed.finally(() => {
      if (this.inFlight === done) this.inFlight = undefined;
    });
    return done;
  }

  private heard(message: EpochMessage): void {
    if (typeof message?.tenant !== "string" || typeof message.workspace !== "string") return;
    const id = key(message.tenant, message.workspace);
    let state = this.workspaces.get(id);
    if (state) this.workspaces.delete(id);
    else state = { version: 0, runners: new Set() };
    state.version = this.next++;
    if (typeof message.runner === "string" && message.runner !== "") state.runners.add(message.runner);
    this.workspaces.set(id, state);
    if (this.workspaces.size > this.maxWorkspaces)
      this.workspaces.delete(this.workspaces.keys().next().value as string);
  }

  private moveAll(): void {
    for (const state of this.workspaces.values()) state.version = this.next++;
  }
}

function key(tenant: string, workspace: string): string {
  return `${tenant}/${workspace}`;
}
