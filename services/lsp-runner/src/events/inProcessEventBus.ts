// The event bus of single-machine mode (docs/architecture.md): the same interface as NATS, in memory.
// Keeps the latest diagnostics per file and the registry like the stream and KV bucket would,
// and lets in-process consumers and writers take part.
import {
  type DiagnosticsMessage,
  diagnosticsSubject,
  type EpochMessage,
  encodeJson,
  type FileEventsMessage,
  type FileEventsReply,
  fileEventsSubject,
  InMemorySymbolIndexStore,
  type RunnerRegistryEntry,
  type StatusMessage,
} from "@lspmesh/events";
import type { Closeable, FileEventsHandler, RunnerEventBus } from "./eventBus.js";

type Listener<T> = (value: T) => void;

export class InProcessEventBus implements RunnerEventBus {
  private readonly diagnostics = new Map<string, DiagnosticsMessage>();
  private readonly runnerEntries = new Map<string, RunnerRegistryEntry>();
  private readonly fileEventHandlers = new Map<string, Set<FileEventsHandler>>();
  private readonly fileEventObservers = new Map<string, Set<(payload: Uint8Array) => void>>();
  /** Symbol indexes in memory; pass one to share it with an in-process gateway. */
  readonly symbolIndex: InMemorySymbolIndexStore;
  private readonly diagnosticsListeners = new Set<Listener<DiagnosticsMessage>>();
  private readonly statusListeners = new Set<Listener<StatusMessage>>();
  private readonly epochListeners = new Set<Listener<EpochMessage>>();
  readonly pendingDiagnostics = 0;
  readonly droppedDiagnostics = 0;
  readonly connected = true;

  constructor(options: { symbolIndex?: InMemorySymbolIndexStore } = {}) {
    this.symbolIndex = options.symbolIndex ?? new InMemorySymbolIndexStore();
  }

  publishDiagnostics(message: DiagnosticsMessage): void {
    this.diagnostics.set(diagnosticsSubject(message.tenant, message.workspace, message.file), message);
    notify(this.diagnosticsListeners, message);
  }

  clearDiagnostics(tenant: string, workspace: string, file: string): void {
    this.diagnostics.delete(diagnosticsSubject(tenant, workspace, file));
  }

  publishStatus(message: StatusMessage): void {
    notify(this.statusListeners, message);
  }

  publishEpoch(message: EpochMessage): void {
    notify(this.epochListeners, message);
  }

  /** Listeners are told synchronously: nothing is ever in flight. */
  async flushPublished(): Promise<void> {}

  subscribeFileEvents(tenant: string, workspace: string, handler: FileEventsHandler): Closeable {
    const subject = fileEventsSubject(tenant, workspace);
    const handlers = this.fileEventHandlers.get(subject) ?? new Set<FileEventsHandler>();
    this.fileEventHandlers.set(subject, handlers);
    handlers.add(handler);
    return { close: () => handlers.delete(handler) };
  }

  observeFileEvents(tenant: string, workspace: string, listener: (payload: Uint8Array) => void): Closeable {
    const subject = fileEventsSubject(tenant, workspace);
    const observers = this.fileEventObservers.get(subject) ?? new Set<(payload: Uint8Array) => void>();
    this.fileEventObservers.set(subject, observers);
    observers.add(listener);
    return { close: () => observers.delete(listener) };
  }

  onReconnect(): Closeable {
    return { close() {} }; // never disconnected
  }

  async putRunner(entry: RunnerRegistryEntry): Promise<void> {
    this.runnerEntries.set(entry.id, entry);
  }

  async deleteRunner(id: string): Promise<void> {
    this.runnerEntries.delete(id);
  }

  async close(): Promise<void> {
    this.fileEventHandlers.clear();
    this.fileEventObservers.clear();
    this.diagnosticsListeners.clear();
    this.statusListeners.clear();
    this.epochListeners.clear();
  }

  // In-process consumers and writers.

  /** Announces file changes as a writer would on `lspmesh.fs.…`; resolves with every subscriber's reply. */
  announceFileChanges(tenant: string, workspace: string, message: FileEventsMessage): Promise<FileEventsReply[]> {
    const subject = fileEventsSubject(tenant, workspace);
    const payload = encodeJson(message);
    notify(this.fileEventObservers.get(subject) ?? new Set<Listener<Uint8Array>>(), payload);
    const handlers = this.fileEventHandlers.get(subject) ?? new Set();
    return Promise.all([...handlers].map((handler) => handler(payload)));
  }

  /** The latest diagnostics of every file, like the last message per subject of LSPMESH_DIAG. */
  latestDiagnostics(): DiagnosticsMessage[] {
    return [...this.diagnostics.values()];
  }

  runners(): RunnerRegistryEntry[] {
    return [...this.runnerEntries.values()];
  }

  onDiagnostics(listener: Listener<DiagnosticsMessage>): Closeable {
    this.diagnosticsListeners.add(listener);
    return { close: () => this.diagnosticsListeners.delete(listener) };
  }

  /** Hears every epoch announcement (in-process gateways, tests). */
  onEpoch(listener: Listener<EpochMessage>): Closeable {
    this.epochListeners.add(listener);
    return { close: () => this.epochListeners.delete(listener) };
  }

  onStatus(listener: Listener<StatusMessage>): Closeable {
    this.statusListeners.add(listener);
    return { close: () => this.statusListeners.delete(listener) };
  }
}

function notify<T>(listeners: ReadonlySet<Listener<T>>, value: T): void {
  for (const listener of listeners) {
    try {
      listener(value);
    } catch {
      // One consumer's failure must not stop the others or the publisher.
    }
  }
}
