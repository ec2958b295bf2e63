// What the runner needs from its event backbone (docs/events.md): NATS in a cluster, an
// in-process bus in single-machine mode. Everything above this interface is transport-neutral.
import type {
  DiagnosticsMessage,
  EpochMessage,
  FileEventsReply,
  KvWatchSource,
  RunnerRegistryEntry,
  StatusMessage,
  SymbolIndexStore,
} from "@lspmesh/events";
import type { WorkspaceRecord } from "./controlPlaneWatch.js";

/** Handles one file-change announcement (raw JSON bytes); the reply goes to requesters. */
export type FileEventsHandler = (payload: Uint8Array) => Promise<FileEventsReply>;

export interface Closeable {
  close(): void;
}

export interface RunnerEventBus {
  /**
   * Publishes the latest diagnostics of one file (`lspmesh.diag.…`). Never throws: while the
   * backbone is away, the newest message per file waits in a bounded queue.
   */
  publishDiagnostics(message: DiagnosticsMessage): void;
  /** Forgets a file's diagnostics (the file was deleted), in order with its publishes. */
  clearDiagnostics(tenant: string, workspace: string, file: string): void;
  /** Publishes a session state change (`lspmesh.status.…`); best effort, never throws. */
  publishStatus(message: StatusMessage): void;
  /**
   * Announces that what a workspace's servers know moved on (`lspmesh.epoch.…`), so gateways drop
   * the answers they remembered; best effort, never throws.
   */
  publishEpoch(message: EpochMessage): void;
  /**
   * Resolves once what was published so far reached the backbone (waiting at most a few seconds;
   * never rejects): a reply sent after it cannot overtake the announcements before it.
   */
  flushPublished(): Promise<void>;
  /** Delivers the file-change announcements of one workspace (`lspmesh.fs.…`) until closed. */
  subscribeFileEvents(tenant: string, workspace: string, handler: FileEventsHandler): Closeable;
  /**
   * Receives the file-change announcements of one workspace without answering them (the symbol
   * index follows them; only the sessions' handler replies that changes reached the servers).
   */
  observeFileEvents(tenant: string, workspace: string, listener: (payload: Uint8Array) => void): Closeable;
  /** Where symbol indexes are stored (JetStream KV on NATS, memory in-process). */
  readonly symbolIndex: SymbolIndexStore;
  /** Called whenever the connection came back after a loss (announcements may have been missed). */
  onReconnect(listener: () => void): Closeable;
  /** Writes this runner's registry entry (KV `lspmesh-runners`); rejects when the backbone is away. */
  putRunner(entry: RunnerRegistryEntry): Promise<void>;
  /** Removes this runner's registry entry. */
  deleteRunner(id: string): Promise<void>;
  /**
   * Watches of the registry's and the claims' keys matching these filters (NATS only: the handoff,
   * handoff/; the runner's identity may read only its own keys, or every key, registryViewKeys).
   */
  registryView?(keys: { registry: string; claims: string }): { registry: KvWatchSource; claims: KvWatchSource };
  /** Diagnostics messages waiting for the backbone (0 when everything was delivered). */
  readonly pendingDiagnostics: number;
  /** Diagnostics messages dropped: the outbox overflowed (oldest file first) or delivery kept failing. */
  readonly droppedDiagnostics: number;
  /** False while the backbone is unreachable (always true in-process). */
  readonly connected: boolean;
  // The control plane (NATS only; single-machine mode has none): deleted workspaces (workspaceDeletions.ts).
  /**
   * Follows the workspace records of the control plane (KV `lspmesh-control`) of these tenants
   * (undefined: every tenant's), replayed and then live, until closed.
   */
  followWorkspaceRecords?(
    tenants: readonly string[] | undefined,
    onRecord: (record: WorkspaceRecord) => void,
  ): Closeable;
  /**
   * Deletes every key of one workspace's stored symbol index, its files first and its meta last,
   * when it has a meta (or `evenWithoutMeta`); resolves with the number of keys deleted.
   */
  deleteWorkspaceIndex?(tenant: string, workspace: string, options?: { evenWithoutMeta?: boolean }): Promise<number>;
  /** Forgets the diagnostics of every file of a workspace this bus published some for; returns how many files. */
  clearWorkspaceDiagnostics?(tenant: string, workspace: string): number;
  /** Delivers what is queued (waiting up to timeoutMs), then disconnects. Idempotent. */
  close(timeoutMs?: number): Promise<void>;
}
