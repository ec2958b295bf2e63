// The runner's event bus on NATS (docs/events.md): diagnostics to the JetStream stream
// LSPMESH_DIAG (latest per file), status on core subjects, file-change announcements from
// writers, and the runner registry in KV. Diagnostics go through a bounded outbox that keeps the
// newest message per file while NATS is away and delivers them, in order per file, when it is back.
// Each is published with a JetStream ack and retried until acked: a NATS node lost (its clients
// move to another URL, the streams elect new leaders) only delays them.
import {
  backoffDelayMs,
  createKvBucket,
  DIAGNOSTICS_STREAM,
  DIAGNOSTICS_STREAM_SUBJECTS,
  type DiagnosticsMessage,
  deletedFileMessage,
  diagnosticsSubject,
  type EpochMessage,
  encodeJson,
  epochSubject,
  fileEventsSubject,
  inboxPrefixOf,
  isTransientJetStreamError,
  NATS_CONNECTION_OPTIONS,
  NATS_USERS,
  type NatsClientAuth,
  type NatsSymbolIndexOptions,
  NatsSymbolIndexStore,
  natsConnectOptions,
  natsServers,
  RUNNER_CLAIMS_BUCKET,
  RUNNER_REGISTRY_BUCKET,
  type RunnerRegistryEntry,
  retryTransient,
  runnerClaimKey,
  type StatusMessage,
  statusSubject,
  symbolIndexBucket,
  symbolIndexMetaKey,
  symbolIndexWorkspaceFilter,
} from "@lspmesh/events";
import { waitAtMost } from "@lspmesh/service-kit";
import {
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  type StreamConfig,
} from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import { connect, type NatsConnection, nuid } from "@nats-io/transport-node";
import { ControlPlaneWatch, type WorkspaceRecord } from "./controlPlaneWatch.js";
import type { Closeable, FileEventsHandler, RunnerEventBus } from "./eventBus.js";
import { LatestPerKeyQueue } from "./latestPerKeyQueue.js";

/** Longest wait of flushPublished for the server's acknowledgement, ms (default 2 000). */
const FLUSH_WAIT_MS = 2_000;

export interface NatsEventBusOptions {
  /** NATS URL(s), e.g. "nats://nats:4222" (comma-separated accepted). */
  servers: string | string[];
  /** Connection name shown by the NATS server (the runner id). */
  name?: string;
  /** Credentials (user `runner-<id>` in the shipped authorization) and TLS CA. */
  auth?: NatsClientAuth;
  log?: (entry: Record<string, unknown>) => void;
  /** Files whose latest diagnostics wait while NATS is away, at most (default 10 000). */
  outboxLimit?: number;
  /** Wait for a JetStream ack or KV write, ms (default 5 000). */
  timeoutMs?: number;
  /** First pause before retrying the outbox after a failure, ms (default 500; doubles to 10 000). */
  retryMs?: number;
  /** Pause between reconnect attempts, ms (default 1 000). */
  reconnectWaitMs?: number;
  /** Copies JetStream keeps of the stream and buckets this creates (LSPMESH_JETSTREAM_REPLICAS; default 1). */
  replicas?: number;
  /** Limits of the symbol index buckets (docs/events.md). */
  symbolIndex?: NatsSymbolIndexOptions;
}

/**
 * Refusals of one message while connected before it is dropped (e.g. too large; default 5). What a
 * cluster says between leaders (timeouts, no responders, "temporarily unavailable") is no refusal:
 * retried until acked.
 */
const MAX_ATTEMPTS_WHILE_CONNECTED = 5;
const MAX_RETRY_MS = 10_000;
/**
 * Wait for the JetStream ack of one diagnostics message or registry write, ms (default 2 000, or
 * timeoutMs if shorter): one lost with a NATS node is sent again soon (a message's id keeps it from
 * being stored twice; a heartbeat is written again within its beat).
 */
const ACK_TIMEOUT_MS = 2_000;
/** How often claims are written again though unchanged, ms (default 60 000): a lost bucket heals. */
const CLAIMS_REFRESH_MS = 60_000;
/**
 * How long a claim write is retried while JetStream elects the claims bucket's leader, ms (default
 * 4 000; a leader is elected in well under a second at a cluster's start): a runner started with its
 * NATS cluster is otherwise not routed until its next heartbeat. Short of a heartbeat (5 s), so the
 * entry written after the claims is not held back past its beat when a NATS node is lost.
 */
const CLAIM_RETRY_BUDGET_MS = 4_000;

/** Keys of a deleted workspace's symbol index purged at once (default 64). */
const PURGE_CONCURRENCY = 64;

/**
 * A file's latest diagnostics message (a deleted file's: deletedFileMessage), with the JetStream
 * message id its retries carry (Nats-Msg-Id: a retry of a publish whose ack was lost is not stored twice).
 */
type OutboxItem = { message: DiagnosticsMessage; attempts: number; id: string };

export class NatsEventBus implements RunnerEventBus {
  private readonly outbox: LatestPerKeyQueue<OutboxItem>;
  private readonly reconnectListeners = new Set<() => void>();
  private readonly log: (entry: Record<string, unknown>) => void;
  private isConnected = true;
  /** Messages given up after MAX_ATTEMPTS_WHILE_CONNECTED refusals. */
  private undeliverable = 0;
  private inFlight = 0;
  private flushing: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private streamChecked = true;
  private closing: Promise<void> | undefined;
  private closed = false;
  /** Claim keys written last, and when (the claims bucket, RUNNER_CLAIMS_BUCKET). */
  private claimed = new Set<string>();
  private claimedAt = 0;
  private readonly refusedClaims = new Set<string>();
  /** `<tenant>/<workspace>` → files whose latest diagnostics this bus published (not yet cleared). */
  private readonly published = new Map<string, Set<string>>();
  private readonly controlWatches = new Set<ControlPlaneWatch>();
  readonly symbolIndex: NatsSymbolIndexStore;
  private readonly publishTimeoutMs: number;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly kv: KV,
    private readonly claims: KV,
    private readonly options: NatsEventBusOptions,
  ) {
    this.outbox = new LatestPerKeyQueue(options.outboxLimit ?? 10_000);
    this.publishTimeoutMs = Math.min(ACK_TIMEOUT_MS, options.timeoutMs ?? ACK_TIMEOUT_MS);
    this.log = options.log ?? (() => {});
    this.symbolIndex = new NatsSymbolIndexStore(nc, options.symbolIndex);
    void this.followStatus();
  }

  /**
   * Connects (failing when NATS cannot be reached now: a runner that cannot register is of no
   * use to gateways), creates or updates the stream and opens the registry bucket.
   */
  static async connect(options: NatsEventBusOptions): Promise<NatsEventBus> {
    const nc = await connect({
      servers: natsServers(options.servers),
      name: options.name,
      ...natsConnectOptions(options.auth),
      ...NATS_CONNECTION_OPTIONS,
      reconnectTimeWait: options.reconnectWaitMs ?? NATS_CONNECTION_OPTIONS.reconnectTimeWait,
    });
    try {
      const timeout = options.timeoutMs ?? 5_000;
      const replicas = options.replicas ?? 1;
      // A cluster between leaders at start: retried (jetstreamRetry.ts).
      const jsm = await retryTransient(() => jetstreamManager(nc, { timeout }));
      await retryTransient(() => ensureDiagnosticsStream(jsm, replicas));
      const js = jetstream(nc, { timeout });
      const registry = new Kvm(jetstream(nc, { timeout: Math.min(timeout, ACK_TIMEOUT_MS) }));
      const kv = await createKvBucket(registry, RUNNER_REGISTRY_BUCKET, { history: 1, replicas });
      const claims = await createKvBucket(registry, RUNNER_CLAIMS_BUCKET, { history: 1, replicas });
      return new NatsEventBus(nc, js, jsm, kv, claims, options);
    } catch (error) {
      await nc.close();
      throw error;
    }
  }

  /** Messages queued or being delivered. */
  get pendingDiagnostics(): number {
    return this.outbox.size + this.inFlight;
  }

  get connected(): boolean {
    return this.isConnected && !this.closed;
  }

  /** Diagnostics messages dropped because the outbox was full (or undeliverable). */
  get droppedDiagnostics(): number {
    return this.outbox.dropped + this.undeliverable;
  }

  publishDiagnostics(message: DiagnosticsMessage): void {
    if (this.closed) return;
    const id = `${message.tenant}/${message.workspace}`;
    const files = this.published.get(id) ?? new Set<string>();
    this.published.set(id, files);
    files.add(message.file);
    this.enqueue(diagnosticsSubject(message.tenant, message.workspace, message.file), message);
  }

  clearDiagnostics(tenant: string, workspace: string, file: string): void {
    const id = `${tenant}/${workspace}`;
    const files = this.published.get(id);
    if (files?.delete(file) && files.size === 0) this.published.delete(id);
    this.enqueue(diagnosticsSubject(tenant, workspace, file), deletedFileMessage(tenant, workspace, file));
  }

  /**
   * A `deleted` message for every file of the workspace this bus published diagnostics for (the
   * runner may not purge the stream, docs/events.md). Files published by an earlier process are
   * not known here.
   */
  clearWorkspaceDiagnostics(tenant: string, workspace: string): number {
    const files = [...(this.published.get(`${tenant}/${workspace}`) ?? [])];
    for (const file of files) this.clearDiagnostics(tenant, workspace, file);
    return files.length;
  }

  followWorkspaceRecords(
    tenants: readonly string[] | undefined,
    onRecord: (record: WorkspaceRecord) => void,
  ): Closeable {
    const watch = new ControlPlaneWatch({ kvm: new Kvm(this.js), tenants, onRecord, log: this.log });
    this.controlWatches.add(watch);
    // Records changed while NATS was away are in the replay of a new watch.
    const reconnect = this.onReconnect(() => watch.rewatch());
    return {
      close: () => {
        reconnect.close();
        this.controlWatches.delete(watch);
        void watch.close();
      },
    };
  }

  async deleteWorkspaceIndex(
    tenant: string,
    workspace: string,
    options: { evenWithoutMeta?: boolean } = {},
  ): Promise<number> {
    const kv = await new Kvm(this.js).open(symbolIndexBucket(tenant));
    try {
      await kv.status(); // open() does not check that the bucket exists
    } catch (error) {
      if (/stream not found/i.test(String(error))) return 0; // the tenant never had an index
      throw error;
    }
    const meta = symbolIndexMetaKey(workspace);
    if (!options.evenWithoutMeta && (await kv.get(meta))?.operation !== "PUT") return 0;
    const keys: string[] = [];
    for await (const key of await kv.keys(symbolIndexWorkspaceFilter(workspace))) keys.push(key);
    // The meta last: a deletion cut short leaves it, so the next attempt finds the index again.
    const files = keys.filter((key) => key !== meta);
    for (let at = 0; at < files.length; at += PURGE_CONCURRENCY) {
      await Promise.all(files.slice(at, at + PURGE_CONCURRENCY).map((key) => kv.purge(key)));
    }
    if (keys.includes(meta)) await kv.purge(meta);
    return keys.length;
  }

  publishEpoch(message: EpochMessage): void {
    if (this.closed) return;
    try {
      this.nc.publish(epochSubject(message.tenant, message.workspace), encodeJson(message));
    } catch (error) {
      this.log({ level: "warn", msg: "epoch not published", error: String(error) });
    }
  }

  async flushPublished(): Promise<void> {
    if (this.closed || !this.isConnected) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, FLUSH_WAIT_MS);
    });
    try {
      await Promise.race([this.nc.flush().catch(() => {}), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  publishStatus(message: StatusMessage): void {
    if (this.closed) return;
    try {
      // Core NATS: buffered by the client while reconnecting; status is a live signal, not a record.
      this.nc.publish(statusSubject(message.tenant, message.workspace), encodeJson(message));
    } catch (error) {
      this.log({ level: "warn", msg: "status not published", error: String(error) });
    }
  }

  subscribeFileEvents(tenant: string, workspace: string, handler: FileEventsHandler): Closeable {
    // One at a time, in arrival order: later announcements must not overtake earlier ones.
    let chain: Promise<void> = Promise.resolve();
    const subscription = this.nc.subscribe(fileEventsSubject(tenant, workspace), {
      callback: (error, message) => {
        if (error) return;
        chain = chain.then(async () => {
          const reply = await handler(message.data);
          if (!message.reply) return;
          // The epochs the changes moved reach NATS before the writer hears they were applied.
          await this.flushPublished();
          // The runner may answer into any reply subject (NATS allow_responses): only a writer's
          // own inbox is one, never a subject the sender chose to make the runner write for it
          // (another runner's registry key, a JetStream API call).
          if (!isWriterInbox(message.reply, tenant)) {
            this.log({
              level: "warn",
              msg: "file events: reply subject refused",
              tenant,
              reply: message.reply.slice(0, 120),
            });
            return;
          }
          message.respond(encodeJson(reply));
        });
        chain = chain.catch((e) => this.log({ level: "warn", msg: "file events not applied", error: String(e) }));
      },
    });
    return { close: () => subscription.unsubscribe() };
  }

  observeFileEvents(tenant: string, workspace: string, listener: (payload: Uint8Array) => void): Closeable {
    const subscription = this.nc.subscribe(fileEventsSubject(tenant, workspace), {
      callback: (error, message) => {
        if (!error) listener(message.data);
      },
    });
    return { close: () => subscription.unsubscribe() };
  }

  onReconnect(listener: () => void): Closeable {
    this.reconnectListeners.add(listener);
    return { close: () => this.reconnectListeners.delete(listener) };
  }

  async putRunner(entry: RunnerRegistryEntry): Promise<void> {
    await this.writeClaims(entry);
    await this.kv.put(entry.id, encodeJson(entry));
  }

  registryView(keys: { registry: string; claims: string }) {
    return {
      registry: { watch: () => this.kv.watch({ key: keys.registry }) },
      claims: { watch: () => this.claims.watch({ key: keys.claims }) },
    };
  }

  async deleteRunner(id: string): Promise<void> {
    await this.kv.delete(id);
    await Promise.all([...this.claimed].map((key) => this.claims.delete(key)));
    this.claimed.clear();
  }

  /**
   * The entry's tenants as claims (one key each; `_any` for a shared pool), written when they
   * change and every CLAIMS_REFRESH_MS; claims no longer made are deleted. A claim the runner's
   * identity was not issued is refused by NATS: logged, and that tenant is not routed here.
   */
  private async writeClaims(entry: RunnerRegistryEntry): Promise<void> {
    const wanted = new Set(
      (entry.tenants?.length ? entry.tenants : [undefined]).map((t) => runnerClaimKey(t, entry.id)),
    );
    const same = wanted.size === this.claimed.size && [...wanted].every((key) => this.claimed.has(key));
    if (same && Date.now() - this.claimedAt < CLAIMS_REFRESH_MS) return;
    const written = new Set<string>();
    await Promise.all(
      [...wanted].map((key) =>
        retryTransient(() => this.claims.put(key, encodeJson({ v: 1, runner: entry.id })), {
          budgetMs: CLAIM_RETRY_BUDGET_MS,
        }).then(
          () => written.add(key),
          (error) => {
            // Said once per claim, not at every heartbeat that tries it again.
            if (this.claimed.has(key) || !this.refusedClaims.has(key))
              this.log({ level: "warn", msg: "registry claim not written", claim: key, error: String(error) });
            this.refusedClaims.add(key);
          },
        ),
      ),
    );
    await Promise.all(
      [...this.claimed].filter((key) => !wanted.has(key)).map((key) => this.claims.delete(key).catch(() => undefined)),
    );
    this.claimed = written;
    this.claimedAt = Date.now();
  }

  /** Delivers the outbox (waiting up to timeoutMs, default 5 000), then drains the connection. Idempotent. */
  close(timeoutMs = 5_000): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.controlWatches].map((watch) => watch.close()));
      this.controlWatches.clear();
      if (this.outbox.size > 0 || this.flushing) {
        this.kick();
        await waitAtMost(this.flushing, timeoutMs);
      }
      if (this.outbox.size > 0) {
        this.log({ level: "warn", msg: "closing with undelivered diagnostics", pending: this.outbox.size });
      }
      this.closed = true;
      this.wakeUp?.();
      await waitAtMost(
        this.nc.drain().catch(() => undefined),
        timeoutMs,
      );
      if (!this.nc.isClosed()) await this.nc.close();
    })();
    return this.closing;
  }

  private enqueue(subject: string, message: DiagnosticsMessage): void {
    if (this.closed) return;
    this.outbox.put(subject, { message, attempts: 0, id: nuid.next() });
    this.kick();
  }

  private kick(): void {
    this.flushing ??= this.flush().finally(() => {
      this.flushing = undefined;
    });
  }

  /**
   * Delivers the outbox one message at a time (so a file's messages stay in order), each acked by
   * JetStream; on failure waits (jittered back-off from retryMs to MAX_RETRY_MS) and retries.
   */
  private async flush(): Promise<void> {
    const backoff = { firstDelayMs: this.options.retryMs ?? 500, maxDelayMs: MAX_RETRY_MS };
    let failures = 0;
    while (!this.closed) {
      const next = this.outbox.shift();
      if (!next) return;
      const [subject, item] = next;
      this.inFlight = 1;
      try {
        if (!this.streamChecked) {
          await ensureDiagnosticsStream(this.jsm, this.options.replicas);
          this.streamChecked = true;
        }
        await this.js.publish(subject, encodeJson(item.message), { msgID: item.id, timeout: this.publishTimeoutMs });
        failures = 0;
      } catch (error) {
        if (this.isConnected) {
          // Connected but not stored: the stream may be gone (deleted, or a store lost; a publish
          // then finds no responders, as between leaders): check it before retrying.
          this.streamChecked = false;
          if (!isTransientJetStreamError(error)) item.attempts++;
        }
        if (item.attempts >= MAX_ATTEMPTS_WHILE_CONNECTED) {
          this.undeliverable++;
          this.log({
            level: "error",
            msg: "diagnostics dropped after repeated failures",
            subject,
            error: String(error),
          });
          continue;
        }
        this.outbox.restore(subject, item);
        this.inFlight = 0;
        await this.pause(backoffDelayMs(failures++, backoff));
      } finally {
        this.inFlight = 0;
      }
    }
  }

  /** Waits ms, or less when the connection comes back or the bus closes. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wakeUp === done) this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private async followStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === "disconnect") {
        this.isConnected = false;
        this.log({ level: "warn", msg: "NATS disconnected; diagnostics wait in the outbox" });
      } else if (status.type === "reconnect") {
        this.isConnected = true;
        this.log({ level: "info", msg: "NATS reconnected", pending: this.outbox.size });
        this.wakeUp?.();
        this.kick();
        for (const listener of this.reconnectListeners) listener();
      }
    }
  }
}

/**
 * Creates LSPMESH_DIAG when it does not exist. An existing stream is left as it is: a runner may
 * neither read a stream's state (its subjects name every tenant's files) nor change its settings
 * (every tenant's retention); operators own them (docs/events.md). Creating with the contract's
 * settings succeeds on an identical stream, and fails with "already in use" on another one: both
 * mean the stream is there. `replicas` applies to a new stream only (an existing one keeps its own).
 */
export async function ensureDiagnosticsStream(jsm: JetStreamManager, replicas = 1): Promise<void> {
  const config: Partial<StreamConfig> & { name: string } = {
    name: DIAGNOSTICS_STREAM,
    subjects: DIAGNOSTICS_STREAM_SUBJECTS,
    max_msgs_per_subject: 1,
    num_replicas: replicas,
  };
  await jsm.streams.add(config).catch((error: Error) => {
    if (!/already in use/i.test(error.message)) throw error;
  });
}

/** `_INBOX.…` (clients without a custom prefix) or the tenant's writer identity's own inbox. */
export function isWriterInbox(reply: string, tenant: string): boolean {
  return reply.startsWith("_INBOX.") || reply.startsWith(`${inboxPrefixOf(NATS_USERS.writer(tenant))}.`);
}
