// A runner serving many tenants from one volume, as a supervisor: it owns the gRPC endpoint, the
// event backbone, the registry entry and the credentials, and never opens a workspace file. Each
// tenant's files are touched only by that tenant's worker process (workers/), confined before it
// runs anything of the tenant's; a stall or a crash in one worker never reaches another tenant.
import type { SymbolIndexStore } from "@lspmesh/events";
import { GrpcAuth, type ServiceClient } from "@lspmesh/grpc";
import type { Runner } from "@lspmesh/proto";
import { Counter, Gauge } from "prom-client";
import type { RunnerEventBus } from "./events/eventBus.js";
import { InProcessEventBus } from "./events/inProcessEventBus.js";
import type { LanguageRegistry } from "./lsp/languages/languageRegistry.js";
import { runnerMetricsRegistry, serveRunnerMetrics } from "./ops/runnerMetrics.js";
import { servedLanguages } from "./runnerCore.js";
import { defaultRunnerId, startRunnerEndpoint } from "./runnerEndpoint.js";
import type { RunnerServerOptions } from "./runnerServer.js";
import { TenantWorkers } from "./workers/tenantWorkers.js";
import { WorkerConnections } from "./workers/workerConnections.js";
import type { WorkerLauncher } from "./workers/workerLauncher.js";
import type { WorkerInit } from "./workers/workerProtocol.js";
import { WorkspaceFolders } from "./workspace/workspaceFolders.js";
import { WorkspaceDeletions } from "./workspaceDeletions.js";

/** The endpoint's settings are an in-process runner's (runnerServer.ts documents them). */
export interface SupervisorOptions
  extends Pick<
    RunnerServerOptions,
    | "listen"
    | "grpcAuth"
    | "events"
    | "runnerId"
    | "advertiseAddress"
    | "pool"
    | "tenants"
    | "heartbeatMs"
    | "handoffMs"
    | "metricsListen"
    | "log"
  > {
  /** The volume root holding `<tenant>/<workspace>`. */
  root: string;
  /** The languages configured (for Describe and the registry; each worker loads the same file). */
  languages: LanguageRegistry;
  /** What each worker is told, but its tenant and the runner id. */
  worker: Omit<WorkerInit, "tenant" | "runnerId" | "root">;
  /** Starts confined worker processes (with an IPC channel when `workerListen` is set). */
  launcher: WorkerLauncher;
  /**
   * host:port where gateways open connections straight to a tenant's worker (HTTP CONNECT,
   * workerConnections.ts); unset: every call is relayed over the worker's pipe.
   */
  workerListen?: string;
}

export interface Supervisor {
  readonly address: string;
  readonly id: string;
  readonly metricsAddress: string | undefined;
  /** host:port taking direct worker connections (workerListen), when on. */
  readonly workerAddress: string | undefined;
  readonly warmedUp: Promise<void>;
  readonly symbolIndex: SymbolIndexStore;
  readonly inProcessClient: ServiceClient<typeof Runner.method>;
  /** Workers running now (tests and metrics). */
  readonly workers: TenantWorkers;
  /**
   * Drains like a runner: endpoint first, the control plane no longer followed, then every worker
   * (and its language servers). Idempotent.
   */
  close(graceMs?: number): Promise<void>;
}

/** How long close() lets in-flight calls finish, ms (default 5 000). */
const DEFAULT_GRACE_MS = 5_000;

export async function startSupervisor(options: SupervisorOptions): Promise<Supervisor> {
  const log = options.log ?? (() => {});
  const id = options.runnerId ?? defaultRunnerId();
  const ownsBus = options.events === undefined;
  const bus: RunnerEventBus = options.events ?? new InProcessEventBus();
  const served = servedLanguages(options.languages);
  // Set once the endpoint is up (it releases the workers' workspaces); until then nothing counts as deleted.
  let deletions: WorkspaceDeletions | undefined;
  const isDeleted = (tenant: string, workspace: string) => deletions?.isDeleted(tenant, workspace) ?? false;
  const workers = new TenantWorkers({
    root: options.root,
    tenants: options.tenants,
    init: { ...options.worker, runnerId: id, root: options.root },
    spawn: (tenant) => options.launcher.spawn(tenant),
    bus,
    log,
    description: { runnerId: id, languages: served },
    isDeleted,
    deletedWorkspaces: (tenant) => deletions?.deletedOf(tenant) ?? [],
  });
  const connections = options.workerListen
    ? await WorkerConnections.listen({
        listen: options.workerListen,
        grpcAuth: options.grpcAuth ?? GrpcAuth.none(),
        workers,
        log,
      })
    : undefined;
  const reconnect = bus.onReconnect(() => workers.reconnected());
  const endpoint = await startRunnerEndpoint({
    id,
    listen: options.listen,
    grpcAuth: options.grpcAuth,
    implementation: workers.implementation(),
    bus,
    served,
    load: () => workers.sessionCount,
    pool: options.pool,
    tenants: options.tenants,
    heartbeatMs: options.heartbeatMs,
    advertiseAddress: options.advertiseAddress,
    warmSessions: () => workers.warmSessions(),
    handoffMs: options.handoffMs,
    ...(connections ? { workerPort: portOf(connections.address) } : {}),
    log,
  }).catch(async (error: unknown) => {
    await connections?.close();
    throw error;
  });
  deletions = WorkspaceDeletions.follow({
    bus,
    tenants: options.tenants,
    release: (ref) => workers.releaseWorkspace(ref),
    log,
    folders: new WorkspaceFolders(options.root),
    onRecord: (tenant, workspace, deleted) => workers.deletion(tenant, workspace, deleted),
  });
  // A restarted runner takes up the symbol indexes it kept (their metas name it): the workers of
  // those tenants start now, and each catches its workspaces up with the files changed meanwhile.
  void bus.symbolIndex
    .ownedBy(id, options.tenants)
    .then((owned) => workers.startFor(owned.filter((ref) => !isDeleted(ref.tenant, ref.workspace))))
    .catch((error) => log({ level: "warn", msg: "stored symbol indexes not listed", error: String(error) }));
  // Warm-up entries: their tenants' workers start now and start those sessions.
  const warmedUp = workers.startFor(options.worker.warmUp ?? []);
  const metrics = options.metricsListen
    ? await serveRunnerMetrics(
        options.metricsListen,
        supervisorMetrics(
          { bus, workers, launcher: options.launcher, connections },
          new Set(served.map((language) => language.id)),
        ),
      )
    : undefined;
  let closing: Promise<void> | undefined;
  return {
    address: endpoint.address,
    id,
    metricsAddress: metrics?.address,
    workerAddress: connections?.address,
    warmedUp,
    symbolIndex: bus.symbolIndex,
    inProcessClient: endpoint.inProcessClient,
    workers,
    close(graceMs = DEFAULT_GRACE_MS) {
      closing ??= (async () => {
        await endpoint.close(graceMs);
        // No new connections; those handed over end with their workers (below).
        await connections?.close();
        reconnect.close();
        await deletions?.close();
        await workers.close(graceMs);
        if (ownsBus) await bus.close();
        await metrics?.close();
      })();
      return closing;
    },
  };
}

function supervisorMetrics(
  parts: { bus: RunnerEventBus; workers: TenantWorkers; launcher: WorkerLauncher; connections?: WorkerConnections },
  languages: ReadonlySet<string>,
) {
  const { bus, workers, launcher, connections } = parts;
  // The workers' language servers as they report them; only configured languages become labels
  // (a worker's report is not trusted to keep the label set bounded).
  const servers = { statuses: () => workers.serverCounts().filter((server) => languages.has(server.language)) };
  const registry = runnerMetricsRegistry(bus, servers, {
    get counts() {
      return workers.answerCounts;
    },
  });
  new Gauge({
    name: "lspmesh_runner_tenant_workers",
    help: "Tenant worker processes running (one per tenant with a recent call).",
    registers: [registry],
    collect() {
      this.set(workers.size);
    },
  });
  new Gauge({
    name: "lspmesh_runner_confinement",
    help: "The confinement of tenant workers: 1 for the active one (landlock, landlock+bwrap).",
    labelNames: ["confinement"],
    registers: [registry],
    collect() {
      this.reset();
      this.set({ confinement: launcher.confinement }, 1);
    },
  });
  new Gauge({
    name: "lspmesh_runner_language_servers_in_workers",
    help: "Language servers running in tenant workers (as reported by the workers every 2 s).",
    registers: [registry],
    collect() {
      this.set(workers.sessionCount);
    },
  });
  new Counter({
    name: "lspmesh_runner_worker_connections_total",
    help: "Connections handed to tenant workers (direct worker connections, LSPMESH_WORKER_LISTEN).",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(connections?.handedOverCount ?? 0);
    },
  });
  return registry;
}

/** The port of a bound host:port. */
function portOf(address: string): number {
  return Number(address.slice(address.lastIndexOf(":") + 1));
}
