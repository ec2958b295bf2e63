// The event backbone as a worker sees it: every publish, subscription and index write goes over the
// private pipe to the supervisor, which checks that it concerns the worker's tenant and forwards
// it to NATS (or the in-process bus). A worker never reaches NATS itself: it has no credentials,
// and no network.
import type { SymbolIndexFileEntry, SymbolIndexMeta, SymbolIndexStore } from "@lspmesh/events";
import type { MessageConnection } from "vscode-jsonrpc";
import type { Closeable, FileEventsHandler, RunnerEventBus } from "../events/eventBus.js";
import {
  type DeliveredFileEvents,
  type DiagnosticsMessage,
  type EpochMessage,
  type FileEventsReply,
  type StatusMessage,
  type StoredIndexWire,
  type SubscribeParams,
  TO_SUPERVISOR,
  TO_WORKER,
} from "./workerProtocol.js";

type Subscriber =
  | { answer: true; handler: FileEventsHandler }
  | { answer: false; listener: (payload: Uint8Array) => void };

export class SupervisorBus implements RunnerEventBus {
  readonly symbolIndex: SymbolIndexStore;
  readonly pendingDiagnostics = 0;
  readonly droppedDiagnostics = 0;
  readonly connected = true;
  private readonly subscribers = new Map<number, Subscriber>();
  private readonly reconnectListeners = new Set<() => void>();
  private nextSubscription = 1;

  constructor(private readonly connection: MessageConnection) {
    const request = <R>(method: string, params: unknown) => connection.sendRequest<R>(method, params);
    this.symbolIndex = {
      read: async (tenant, workspace) => {
        const stored = await request<StoredIndexWire>(TO_SUPERVISOR.indexRead, { tenant, workspace });
        return {
          ...(stored.meta ? { meta: stored.meta } : {}),
          files: new Map(stored.files.map((entry) => [entry.file, entry])),
        };
      },
      putFile: (tenant, workspace, entry: SymbolIndexFileEntry) =>
        request(TO_SUPERVISOR.indexPutFile, { tenant, workspace, entry }),
      deleteFile: (tenant, workspace, file) => request(TO_SUPERVISOR.indexDeleteFile, { tenant, workspace, file }),
      putMeta: (meta: SymbolIndexMeta) => request(TO_SUPERVISOR.indexPutMeta, { meta }),
      ownedBy: (runner, tenants) => request(TO_SUPERVISOR.indexOwnedBy, { runner, tenants }),
      // Gateways follow indexes; a worker only writes its tenant's.
      follow: async () => undefined,
    };
    connection.onRequest(TO_WORKER.fileEvents, async (delivered: DeliveredFileEvents): Promise<FileEventsReply> => {
      const subscriber = this.subscribers.get(delivered.subscription);
      if (!subscriber?.answer) throw new Error(`no subscription ${delivered.subscription}`);
      return subscriber.handler(Buffer.from(delivered.payload, "base64"));
    });
    connection.onNotification(TO_WORKER.observedFileEvents, (delivered: DeliveredFileEvents) => {
      const subscriber = this.subscribers.get(delivered.subscription);
      if (subscriber && !subscriber.answer) subscriber.listener(Buffer.from(delivered.payload, "base64"));
    });
    connection.onNotification(TO_WORKER.reconnected, () => {
      for (const listener of this.reconnectListeners) listener();
    });
  }

  publishDiagnostics(message: DiagnosticsMessage): void {
    void this.connection.sendNotification(TO_SUPERVISOR.publishDiagnostics, message).catch(() => {});
  }

  clearDiagnostics(tenant: string, workspace: string, file: string): void {
    void this.connection.sendNotification(TO_SUPERVISOR.clearDiagnostics, { tenant, workspace, file }).catch(() => {});
  }

  publishStatus(message: StatusMessage): void {
    void this.connection.sendNotification(TO_SUPERVISOR.publishStatus, message).catch(() => {});
  }

  publishEpoch(message: EpochMessage): void {
    void this.connection.sendNotification(TO_SUPERVISOR.publishEpoch, message).catch(() => {});
  }

  /**
   * The pipe keeps order: the supervisor publishes the announcements sent before this request,
   * then answers it once NATS has them. (A relayed call needs none of this: the supervisor
   * flushes before it relays the answer.)
   */
  async flushPublished(): Promise<void> {
    await this.connection.sendRequest(TO_SUPERVISOR.flushPublished, {});
  }

  subscribeFileEvents(tenant: string, workspace: string, handler: FileEventsHandler): Closeable {
    return this.subscribe({ answer: true, handler }, tenant, workspace);
  }

  observeFileEvents(tenant: string, workspace: string, listener: (payload: Uint8Array) => void): Closeable {
    return this.subscribe({ answer: false, listener }, tenant, workspace);
  }

  onReconnect(listener: () => void): Closeable {
    this.reconnectListeners.add(listener);
    return { close: () => this.reconnectListeners.delete(listener) };
  }

  async putRunner(): Promise<void> {
    throw new Error("a worker has no registry entry: its supervisor registers the runner");
  }

  async deleteRunner(): Promise<void> {
    throw new Error("a worker has no registry entry: its supervisor registers the runner");
  }

  async close(): Promise<void> {
    for (const subscription of this.subscribers.keys()) this.unsubscribe(subscription);
    this.reconnectListeners.clear();
  }

  private subscribe(subscriber: Subscriber, tenant: string, workspace: string): Closeable {
    const subscription = this.nextSubscription++;
    this.subscribers.set(subscription, subscriber);
    const params: SubscribeParams = { subscription, tenant, workspace, answer: subscriber.answer };
    void this.connection.sendRequest(TO_SUPERVISOR.subscribe, params).catch(() => {});
    return { close: () => this.unsubscribe(subscription) };
  }

  private unsubscribe(subscription: number): void {
    if (!this.subscribers.delete(subscription)) return;
    void this.connection.sendNotification(TO_SUPERVISOR.unsubscribe, { subscription }).catch(() => {});
  }
}
