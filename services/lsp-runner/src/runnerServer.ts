// Assembles a runner: sessions, engine, events (status, diagnostics, workspace watching,
// registry) and the gRPC server with the standard health service.
import { hostname } from "node:os";
import * as grpc from "@grpc/grpc-js";
import type { SymbolIndexStore } from "@lspmesh/events";
import { addService, type CallContext, GrpcAuth, type ServiceClient } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { splitHostPort } from "@lspmesh/service-kit";
import { HealthImplementation } from "grpc-health-check";
import { AnswerCache } from "./engine/answerCache.js";
import type { WorkspaceRef } from "./engine/answers.js";
import { QueryEngine } from "./engine/queryEngine.js";
import type { RunnerEventBus } from "./events/eventBus.js";
import { InProcessEventBus } from "./events/inProcessEventBus.js";
import { RunnerEvents } from "./events/runnerEvents.js";
import { DEFAULT_HEARTBEAT_MS, RunnerRegistration } from "./events/runnerRegistration.js";
import { requestIdOf, withCallLog } from "./grpc/callLog.js";
import { InProcessCalls } from "./grpc/inProcessCalls.js";
import { runnerService } from "./grpc/runnerService.js";
import { withAgentActivity } from "./grpc/trackedCalls.js";
import { LanguageRegistry } from "./lsp/languages/languageRegistry.js";
import { type LifecycleEvent, SessionManager, type SessionManagerOptions } from "./lsp/pool/sessionManager.js";
import type { SessionPolicyOverrides } from "./lsp/pool/sessionPolicy.js";
import type { ServerStateName } from "./lsp/session/sessionState.js";
import { runnerMetricsRegistry, serveRunnerMetrics } from "./ops/runnerMetrics.js";
import { type WarmUpEntry, warmUpSessions } from "./sessionWarmUp.js";
import { AgentActivity } from "./symbolIndex/agentActivity.js";
import { SymbolIndexer, type SymbolIndexLimits } from "./symbolIndex/symbolIndexer.js";
import { TenantAllowlistLocator } from "./workspace/tenantAllowlist.js";
import type { WorkspaceLocator } from "./workspace/workspaceLocator.js";

/** A server's state as a console shows it. */
export interface ServerStateEvent {
  tenant: string;
  workspace: string;
  language: string;
  state: ServerStateName | "stopped";
  /** Work-done progress text, e.g. "Indexing: 3/10 30%" ("" when none). */
  progress: string;
}

export interface RunnerServerOptions {
  /** host:port to listen on; port 0 picks a free one. */
  listen: string;
  /** Credentials every Runner call must carry (mTLS and/or a shared secret); default none (loopback, tests). */
  grpcAuth?: GrpcAuth;
  locator: WorkspaceLocator;
  languages?: LanguageRegistry;
  maxFileBytes?: number;
  /** Read-only answers remembered per session (default MAX_ANSWERS_PER_SESSION); 0 = no cache, no sharing. */
  answerCacheEntries?: number;
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
  /** Watch workspaces with inotify (default true). Off on network volumes: rely on `lspmesh.fs` events. */
  watchWorkspaces?: boolean;
  /** Quiet time before locally seen file changes are applied, ms (default 100). */
  watchDebounceMs?: number;
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
  /**
   * The Runner service called in this process (no serialising, socket or HTTP/2): what a gateway
   * in the same process (`lspmesh serve`, `lspmesh mcp`) uses instead of a gRPC channel.
   */
  readonly inProcessClient: ServiceClient<typeof Runner.method>;
  /**
   * Drains: health NOT_SERVING and registry entry removed, in-flight calls finished (up to
   * graceMs), workspaces unwatched, every language server stopped. Idempotent.
   */
  close(graceMs?: number): Promise<void>;
}

/** How long close() lets in-flight calls finish before cancelling them, in ms (default 5 000). */
const DEFAULT_GRACE_MS = 5_000;

export async function startRunnerServer(options: RunnerServerOptions): Promise<RunnerServer> {
  const log = options.log ?? (() => {});
  const id = options.runnerId ?? defaultRunnerId();
  const ownsBus = options.events === undefined;
  const bus = options.events ?? new InProcessEventBus();
  const languages = options.languages ?? new LanguageRegistry();
  const events = new RunnerEvents({
    bus,
    runnerId: id,
    watchLocally: options.watchWorkspaces ?? true,
    watchDebounceMs: options.watchDebounceMs,
    log,
  });
  // Created after the engine it queries; session events reach it once it exists.
  let indexer: SymbolIndexer | undefined;
  const sessions = new SessionManager({
    maxFileBytes: options.maxFileBytes,
    policy: options.sessionPolicy,
    onLog: (entry) => log({ level: "debug", msg: "language server", ...entry }),
    onLifecycleEvent: (event) => {
      log({ level: event.kind === "failed" ? "warn" : "info", msg: `language server ${event.kind}`, ...event });
      options.onLifecycleEvent?.(event);
    },
    onOutgoing: options.onServerMessage,
    onSessionEvent: (origin, event) => {
      events.onSessionEvent(origin, event);
      if (event.type === "state" && event.state === "ready") indexer?.serverReady(origin, origin.language);
      if (event.type === "diagnostics") return;
      options.onServerState?.({
        tenant: origin.tenant,
        workspace: origin.workspace,
        language: origin.language,
        state: event.type === "closed" ? "stopped" : event.state,
        progress: event.session.progress.summary(),
      });
    },
  });
  const locator = options.tenants ? new TenantAllowlistLocator(options.locator, options.tenants) : options.locator;
  const activity = new AgentActivity();
  const indexing = options.symbolIndex?.enabled ?? true;
  const engine: QueryEngine = new QueryEngine({
    locator,
    languages,
    sessions,
    changes: events,
    answers: new AnswerCache(options.answerCacheEntries),
    onWorkspaceUsed: (ref) => void indexer?.ensure(ref),
  });
  if (indexing) {
    indexer = new SymbolIndexer({
      bus,
      runnerId: id,
      tenants: options.tenants,
      locator,
      languages,
      activity,
      serverRunning: (ref, language) =>
        sessions
          .statusOf(ref.tenant, ref.workspace)
          .some((status) => status.language === language && (status.state === "ready" || status.state === "indexing")),
      documentSymbols: async (ref, file, signal) =>
        (await engine.navigation.documentSymbols({ ref, file, signal, transient: true })).symbols,
      watchLocally: options.watchWorkspaces ?? true,
      debounceMs: options.watchDebounceMs,
      maxFiles: options.symbolIndex?.maxFiles,
      maxSymbolsPerFile: options.symbolIndex?.maxSymbolsPerFile,
      maxFileBytes: options.symbolIndex?.maxFileBytes ?? options.maxFileBytes,
      log,
    });
  }
  const grpcAuth = options.grpcAuth ?? GrpcAuth.none();
  const server = new grpc.Server({ "grpc.max_receive_message_length": 16 * 1024 * 1024 });
  const health = new HealthImplementation({ "": "SERVING", "lspmesh.v1.Runner": "SERVING" });
  health.addToServer(server);
  // Gateways route a file only to runners that can start its server, by these extensions.
  const served = languages.installed().map((language) => ({
    id: language.id,
    extensions: Object.keys(language.extensions).map((extension) => extension.toLowerCase()),
  }));
  const implementation = withCallLog(
    withAgentActivity(runnerService(engine, { runnerId: id, languages: served }), activity),
    log,
  );
  const onUnexpectedError = (method: string, error: unknown, context: CallContext) =>
    log({
      level: "error",
      msg: "unexpected error",
      method,
      requestId: requestIdOf(context),
      error: String((error as Error)?.stack ?? error),
    });
  addService(server, Runner, implementation, onUnexpectedError, (metadata) => grpcAuth.authorizes(metadata));
  // Same process, same service, no credentials to check: nothing crosses a process boundary.
  const inProcess = new InProcessCalls(implementation, onUnexpectedError);
  let advertised = "";
  const registration = new RunnerRegistration(
    bus,
    () => ({
      id,
      address: advertised,
      languages: served.map((language) => language.id),
      extensions: Object.fromEntries(served.map((language) => [language.id, language.extensions])),
      pool: options.pool ?? "default",
      ...(options.tenants ? { tenants: [...options.tenants] } : {}),
      load: events.sessionCount,
    }),
    options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    log,
  );
  const [host, portText] = splitHostPort(options.listen);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${portText}`, grpcAuth.serverCredentials(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const address = `${host}:${port}`;
  const wildcard = host === "0.0.0.0" || host === "::" || host === "[::]";
  advertised = options.advertiseAddress ?? (wildcard ? `${hostname()}:${port}` : address);
  await registration.start();
  const metrics = options.metricsListen
    ? await serveRunnerMetrics(options.metricsListen, runnerMetricsRegistry(bus, sessions, engine.answers))
    : undefined;
  for (const ref of options.symbolIndex?.workspaces ?? []) void indexer?.ensure(ref);
  void indexer
    ?.catchUpOwned()
    .then((count) => count > 0 && log({ level: "info", msg: "symbol indexes taken up again", count }))
    .catch((error) => log({ level: "warn", msg: "stored symbol indexes not listed", error: String(error) }));
  const warmedUp = warmUpSessions(options.warmUp ?? [], { locator, languages, sessions, log });
  let closing: Promise<void> | undefined;
  return {
    address,
    id,
    metricsAddress: metrics?.address,
    sessions,
    events: bus,
    symbolIndexer: indexer,
    symbolIndex: bus.symbolIndex,
    inProcessClient: inProcess.client,
    warmedUp,
    close(graceMs = DEFAULT_GRACE_MS) {
      closing ??= (async () => {
        // Gateways stop routing here first: health checks fail and the registry entry goes.
        health.setStatus("", "NOT_SERVING");
        health.setStatus("lspmesh.v1.Runner", "NOT_SERVING");
        await registration.close();
        const network = new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            server.forceShutdown();
            resolve();
          }, graceMs);
          server.tryShutdown(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        await Promise.all([network, inProcess.drain(graceMs)]);
        await indexer?.close();
        await events.close();
        await sessions.close();
        if (ownsBus) await bus.close();
        await metrics?.close();
      })();
      return closing;
    },
  };
}

/** `<hostname>-<pid>`, reduced to the characters a registry key allows. */
function defaultRunnerId(): string {
  return `${hostname()}-${process.pid}`.replace(/[^A-Za-z0-9_=.-]/g, "-").replace(/^[^A-Za-z0-9]+/, "");
}
