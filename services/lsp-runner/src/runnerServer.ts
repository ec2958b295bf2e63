// Assembles a runner in one process: a runner core (sessions, engine, events, symbol index) behind
// the runner's gRPC endpoint (server, health, registry). For one trust domain: `lspmesh serve`, a
// runner pinned to tenants that trust each other. Supervisor and workers: supervisor.ts.
import { MAX_WARM_SESSIONS, type SymbolIndexStore, sessionId } from "@lspmesh/events";
import type { GrpcAuth, ServiceClient } from "@lspmesh/grpc";
import type { Runner } from "@lspmesh/proto";
import type { WorkspaceRef } from "./engine/answers.js";
import type { RunnerEventBus } from "./events/eventBus.js";
import { InProcessEventBus } from "./events/inProcessEventBus.js";
import { LanguageRegistry } from "./lsp/languages/languageRegistry.js";
import type { LifecycleEvent, SessionManager, SessionManagerOptions } from "./lsp/pool/sessionManager.js";
import type { SessionPolicyOverrides } from "./lsp/pool/sessionPolicy.js";
import { runnerMetricsRegistry, serveRunnerMetrics } from "./ops/runnerMetrics.js";
import { type ServerStateEvent, startRunnerCore } from "./runnerCore.js";
import { defaultRunnerId, startRunnerEndpoint } from "./runnerEndpoint.js";
import { type WarmUpEntry, warmUpSessions } from "./sessionWarmUp.js";
import type { SymbolIndexer, SymbolIndexLimits } from "./symbolIndex/symbolIndexer.js";
import { TenantAllowlistLocator } from "./workspace/tenantAllowlist.js";
import { WorkspaceFolders } from "./workspace/workspaceFolders.js";
import type { WorkspaceLocator } from "./workspace/workspaceLocator.js";
import { DeletedWorkspaceLocator, WorkspaceDeletions } from "./workspaceDeletions.js";

export type { ServerStateEvent } from "./runnerCore.js";

export interface RunnerServerOptions {
  /** host:port to listen on; port 0 picks a free one. */
  listen: string;
  /** Credentials every Runner call must carry (mTLS and/or a shared secret); default none (loopback, tests). */
  grpcAuth?: GrpcAuth;
  locator: WorkspaceLocator;
  /** `<root>/<tenant>/<workspace>` folders: made and removed when the control plane asks (absent: never). */
  workspacesRoot?: string;
  languages?: LanguageRegistry;
  maxFileBytes?: number;
  /** Read-only answers remembered per session (default MAX_ANSWERS_PER_SESSION); 0 = no cache, no sharing. */
  answerCacheEntries?: number;
  /** Questions per session asked again after documents were opened; 0 = off. */
  answerWarming?: number;
  /** Write tools may change files under `.git/` (default false). */
  allowGitWrites?: boolean;
  /** Session lifecycle: timeouts, restart budget, idle timeout, memory budget, limits (sessionPolicy.ts). */
  sessionPolicy?: SessionPolicyOverrides;
  /** Sessions started right away instead of on their first request. */
  warmUp?: readonly WarmUpEntry[];
  /** Lifecycle changes of sessions (also logged); for status events. */
  onLifecycleEvent?: (event: LifecycleEvent) => void;
  /** Every change of a server's state (starting, indexing, ready, …, stopped), for a console. */
  onServerState?: (event: ServerStateEvent) => void;
  /** Every message the runner writes to a language server (tracing and tests). */
  onServerMessage?: SessionManagerOptions["onOutgoing"];
  log?: (entry: Record<string, unknown>) => void;
  /**
   * The event backbone (NatsEventBus in a cluster). The caller keeps it and closes it after the
   * runner (that delivers queued diagnostics). Default: an in-process bus the runner owns.
   */
  events?: RunnerEventBus;
  /** Registry key and `runner` of status events (default `<hostname>-<pid>`). */
  runnerId?: string;
  /** host:port gateways dial (default: the bound address, with the host name for 0.0.0.0 / ::). */
  advertiseAddress?: string;
  /** Pool of this runner in the registry (default "default"). */
  pool?: string;
  /** Tenants admitted (dedicated pool); other tenants' workspaces are NOT_FOUND. Default: any. */
  tenants?: readonly string[];
  /** Registry heartbeat period, ms (default 5 000). */
  heartbeatMs?: number;
  /** Longest handoff wait, ms (docs/architecture.md, "Handoff"; NATS only); 0 or absent = no handoff. */
  handoffMs?: number;
  /** Watch workspaces with inotify (default true). Off on network volumes: rely on `lspmesh.fs` events. */
  watchWorkspaces?: boolean;
  /** Quiet time before locally seen file changes are applied, ms (default 100). */
  watchDebounceMs?: number;
  /** How often folders past a tenant's watch budget are polled, ms (default 5 000). */
  watchPollMs?: number;
  /** host:port for Prometheus GET /metrics (port 0: a free one); unset = no metrics server. */
  metricsListen?: string;
  /**
   * The symbol index (docs/architecture.md): on by default, stored through the event bus. Workspaces
   * named here are indexed from the start; others once a request names them.
   */
  symbolIndex?: SymbolIndexLimits & { enabled?: boolean; workspaces?: readonly WorkspaceRef[] };
}

export interface RunnerServer {
  /** host:port actually bound. */
  readonly address: string;
  readonly id: string;
  /** Where GET /metrics is served, when metricsListen was given. */
  readonly metricsAddress: string | undefined;
  readonly sessions: SessionManager;
  /** Settles once every warm-up entry was started or given up on. */
  readonly warmedUp: Promise<void>;
  readonly events: RunnerEventBus;
  /** The symbol indexer (undefined when switched off). */
  readonly symbolIndexer: SymbolIndexer | undefined;
  /** Where the indexes are stored (the event bus's store): an in-process gateway reads them here. */
  readonly symbolIndex: SymbolIndexStore;
  /** Deleted workspaces followed in the control plane (NATS only; undefined in-process). */
  readonly deletions: WorkspaceDeletions | undefined;
  /**
   * The Runner service called in this process (no serialising, socket or HTTP/2): what a gateway
   * in the same process (`lspmesh serve`, `lspmesh mcp`) uses instead of a gRPC channel.
   */
  readonly inProcessClient: ServiceClient<typeof Runner.method>;
  /**
   * Drains: health NOT_SERVING and registry entry removed, in-flight calls finished (up to
   * graceMs), the control plane no longer followed, workspaces unwatched, every language server
   * stopped. Idempotent.
   */
  close(graceMs?: number): Promise<void>;
  /** close() with the default grace period: `await using runner = await startRunnerServer(…)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** How long close() lets in-flight calls finish before cancelling them, in ms (default 5 000). */
const DEFAULT_GRACE_MS = 5_000;

export async function startRunnerServer(options: RunnerServerOptions): Promise<RunnerServer> {
  const log = options.log ?? (() => {});
  const id = options.runnerId ?? defaultRunnerId();
  const ownsBus = options.events === undefined;
  const bus: RunnerEventBus = options.events ?? new InProcessEventBus();
  const languages = options.languages ?? new LanguageRegistry();
  const allowed = options.tenants ? new TenantAllowlistLocator(options.locator, options.tenants) : options.locator;
  // Set once the runner is up (it releases the core's workspaces); until then nothing counts as deleted.
  let deletions: WorkspaceDeletions | undefined;
  const isDeleted = (tenant: string, workspace: string) => deletions?.isDeleted(tenant, workspace) ?? false;
  const locator = bus.followWorkspaceRecords ? new DeletedWorkspaceLocator(allowed, isDeleted) : allowed;
  const core = startRunnerCore({
    runnerId: id,
    bus,
    locator,
    languages,
    tenants: options.tenants,
    maxFileBytes: options.maxFileBytes,
    answerCacheEntries: options.answerCacheEntries,
    answerWarming: options.answerWarming,
    allowGitWrites: options.allowGitWrites,
    sessionPolicy: options.sessionPolicy,
    onLifecycleEvent: options.onLifecycleEvent,
    onServerState: options.onServerState,
    onServerMessage: options.onServerMessage,
    log,
    watchWorkspaces: options.watchWorkspaces,
    watchDebounceMs: options.watchDebounceMs,
    watchPollMs: options.watchPollMs,
    symbolIndex: options.symbolIndex,
    isDeleted,
  });
  const { sessions, engine, served } = core;
  const endpoint = await startRunnerEndpoint({
    id,
    listen: options.listen,
    grpcAuth: options.grpcAuth,
    implementation: core.implementation,
    bus,
    served,
    load: () => core.events.sessionCount,
    pool: options.pool,
    tenants: options.tenants,
    heartbeatMs: options.heartbeatMs,
    advertiseAddress: options.advertiseAddress,
    warmSessions: () => sessions.warmSessions(MAX_WARM_SESSIONS).map(sessionId),
    handoffMs: options.handoffMs,
    log,
  });
  deletions = WorkspaceDeletions.follow({
    bus,
    tenants: options.tenants,
    release: (ref) => core.releaseWorkspace(ref),
    log,
    ...(options.workspacesRoot ? { folders: new WorkspaceFolders(options.workspacesRoot) } : {}),
  });
  const metrics = options.metricsListen
    ? await serveRunnerMetrics(options.metricsListen, runnerMetricsRegistry(bus, sessions, engine.answers))
    : undefined;
  await core.indexesAnnounced;
  const warmedUp = warmUpSessions(options.warmUp ?? [], { locator, languages, sessions, log });
  let closing: Promise<void> | undefined;
  const close = (graceMs = DEFAULT_GRACE_MS) => {
    closing ??= (async () => {
      await endpoint.close(graceMs);
      await deletions?.close();
      await core.close();
      if (ownsBus) await bus.close();
      await metrics?.close();
    })();
    return closing;
  };
  return {
    address: endpoint.address,
    id,
    metricsAddress: metrics?.address,
    sessions,
    events: bus,
    symbolIndexer: core.symbolIndexer,
    symbolIndex: bus.symbolIndex,
    deletions,
    inProcessClient: endpoint.inProcessClient,
    warmedUp,
    close,
    [Symbol.asyncDispose]: () => close(),
  };
}
