// The supervisor's workers, one per tenant, started on the tenant's first call and replaced when
// one dies; and the Runner service that routes each call to the worker of the tenant it names.
// The supervisor never opens a workspace file: it checks the ids, that `<root>/<tenant>` is a
// directory (lstat, no link followed), and forwards the request's bytes.
import type { ChildProcess } from "node:child_process";
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { toBinary } from "@bufbuild/protobuf";
import { type CallContext, EncodedMessage, type ServiceImplementation } from "@lspmesh/grpc";
import { Runner, type WorkspaceRef } from "@lspmesh/proto";
import { activeTraceHeaders } from "@lspmesh/service-kit";
import type { AnswerCacheCounts } from "../engine/answerCache.js";
import { invalidArgument } from "../errors.js";
import type { RunnerEventBus } from "../events/eventBus.js";
import { requestIdOf } from "../grpc/callLog.js";
import { grpcErrorFromRunner } from "../grpc/errorStatus.js";
import type { RunnerDescriptionFields } from "../grpc/runnerService.js";
import { assertWorkspaceId } from "../workspace/workspaceIds.js";
import { deletedWorkspace, unknownWorkspace } from "../workspace/workspaceLocator.js";
import { TenantWorker } from "./tenantWorker.js";
import { mergeWarmSessions } from "./warmReport.js";
import type { ServerCounts } from "./workerLoad.js";
import type { ReleasedWorkspace, WorkerInit } from "./workerProtocol.js";

type RunnerMethods = typeof Runner.method;

export interface TenantWorkersOptions {
  /** The volume root holding `<tenant>/<workspace>`. */
  root: string;
  /** Tenants admitted (a dedicated pool); others are NOT_FOUND. Undefined: any tenant with a folder. */
  tenants?: readonly string[];
  /** What every worker is told, but its tenant. */
  init: Omit<WorkerInit, "tenant">;
  /** Starts a confined worker process for `tenant` (stdio piped). */
  spawn: (tenant: string) => ChildProcess;
  bus: RunnerEventBus;
  log: (entry: Record<string, unknown>) => void;
  description: RunnerDescriptionFields;
  /** A workspace deleted in the control plane (NOT_FOUND here, its stored index not taken up). */
  isDeleted?: (tenant: string, workspace: string) => boolean;
  /** The tenant's deleted workspaces now (a starting worker is told; deletion() tells it the changes). */
  deletedWorkspaces?: (tenant: string) => string[];
}

export class TenantWorkers {
  private readonly workers = new Map<string, Promise<TenantWorker>>();
  /** Workers whose process started and has not exited. */
  private readonly running = new Map<string, TenantWorker>();
  private readonly admitted: ReadonlySet<string> | undefined;
  private closed = false;

  constructor(private readonly options: TenantWorkersOptions) {
    this.admitted = options.tenants ? new Set(options.tenants) : undefined;
  }

  /** Language servers running in every worker (the registry's load). */
  get sessionCount(): number {
    let count = 0;
    for (const worker of this.running.values()) count += worker.load.sessions;
    return count;
  }

  /** The language servers of every running worker, as they last reported them. */
  serverCounts(): ServerCounts[] {
    return [...this.running.values()].flatMap((worker) => worker.load.servers);
  }

  /** The answer counts of every running worker, summed (they fall when a worker exits). */
  get answerCounts(): AnswerCacheCounts {
    const total = { hit: 0, shared: 0, miss: 0 };
    for (const { load } of this.running.values()) {
      total.hit += load.answers.hit;
      total.shared += load.answers.shared;
      total.miss += load.answers.miss;
    }
    return total;
  }

  /** Warm sessions of every running worker, most recently used first (the registry's `warm`). */
  warmSessions(): string[] {
    return mergeWarmSessions([...this.running.values()].map((worker) => worker.warm));
  }

  /** Workers running now. */
  get size(): number {
    return this.running.size;
  }

  /** The worker of `tenant` for a call on `workspace`. Throws NOT_FOUND for tenants and workspaces not here. */
  async forTenant(tenant: string, workspace: string): Promise<TenantWorker> {
    assertWorkspaceId("workspace", workspace);
    return this.workerOf(tenant, workspace);
  }

  /**
   * The worker of `tenant`, started if needed (a dead one is replaced); without a workspace, for a
   * connection of its own (direct worker connections). NOT_FOUND for a tenant not served here.
   */
  async workerOf(tenant: string, workspace?: string): Promise<TenantWorker> {
    assertWorkspaceId("tenant", tenant);
    const named = workspace ?? tenant;
    if (this.closed) throw unknownWorkspace(named);
    if (this.admitted && !this.admitted.has(tenant)) throw unknownWorkspace(named);
    if (!isRealDirectory(join(this.options.root, tenant))) throw unknownWorkspace(named);
    if (workspace !== undefined && this.options.isDeleted?.(tenant, workspace))
      throw deletedWorkspace(tenant, workspace);
    const existing = this.workers.get(tenant);
    if (existing) {
      const worker = await existing.catch(() => undefined);
      if (worker && !worker.exitedAlready) return worker;
      if (this.workers.get(tenant) === existing) this.workers.delete(tenant);
      return this.workerOf(tenant, workspace);
    }
    const starting = TenantWorker.start({
      init: {
        ...this.options.init,
        tenant,
        warmUp: this.options.init.warmUp?.filter((entry) => entry.tenant === tenant),
        deleted: this.options.deletedWorkspaces?.(tenant) ?? [],
      },
      spawn: () => this.options.spawn(tenant),
      bus: this.options.bus,
      log: this.options.log,
      isDeleted: this.options.isDeleted,
    }).then(({ worker, ready }) => {
      this.options.log({ level: "info", msg: "tenant worker started", tenant, pid: ready.pid });
      this.running.set(tenant, worker);
      void worker.exited.then(() => {
        if (this.running.get(tenant) === worker) this.running.delete(tenant);
      });
      return worker;
    });
    this.workers.set(tenant, starting);
    starting.catch((error: unknown) => {
      if (this.workers.get(tenant) === starting) this.workers.delete(tenant);
      this.options.log({ level: "error", msg: "tenant worker did not start", tenant, error: String(error) });
    });
    return starting;
  }

  /**
   * Starts the worker of every tenant named (once per tenant, with its first workspace); settles
   * when each started or failed (failures are logged by forTenant).
   */
  async startFor(refs: Iterable<{ tenant: string; workspace: string }>): Promise<void> {
    const firstWorkspace = new Map<string, string>();
    for (const { tenant, workspace } of refs) if (!firstWorkspace.has(tenant)) firstWorkspace.set(tenant, workspace);
    await Promise.allSettled([...firstWorkspace].map(([tenant, workspace]) => this.forTenant(tenant, workspace)));
  }

  /** The Runner service: Describe answered here, every other call by the tenant's worker. */
  implementation(): ServiceImplementation<RunnerMethods> {
    const routed: Record<string, unknown> = {};
    for (const [name, method] of Object.entries(Runner.method)) {
      routed[name] = async (request: { workspace?: WorkspaceRef }, context: CallContext) => {
        try {
          const ref = request.workspace;
          if (!ref?.tenant || !ref.workspace) throw invalidArgument("the request names no tenant and workspace");
          const worker = await this.forTenant(ref.tenant, ref.workspace);
          const bytes = await worker.call(
            {
              method: name,
              // The bytes as the gateway sent them when the call came on a stream of calls.
              request: Buffer.from(context.requestBytes ?? toBinary(method.input, request as never)).toString("base64"),
              ...(Number.isFinite(context.deadlineMs) ? { deadlineMs: context.deadlineMs } : {}),
              requestId: requestIdOf(context),
              // This call's span (tracing on): the worker's language-server spans are its children.
              trace: activeTraceHeaders(),
            },
            context.signal,
          );
          // The worker's answer goes on as it is: decoded only by the gateway.
          return new EncodedMessage(bytes);
        } catch (error) {
          return grpcErrorFromRunner(error);
        }
      };
    }
    const { runnerId, languages } = this.options.description;
    routed.describe = async () => ({
      runnerId,
      languages: languages.map((language) => ({ id: language.id, extensions: [...language.extensions] })),
    });
    return routed as ServiceImplementation<RunnerMethods>;
  }

  /**
   * The workspace was deleted: its tenant's worker (when one runs or starts) stops its servers,
   * indexing and watches; resolves once it did.
   */
  async releaseWorkspace(ref: { tenant: string; workspace: string }): Promise<ReleasedWorkspace> {
    const worker = await this.workers.get(ref.tenant)?.catch(() => undefined);
    if (!worker) return { servers: 0, indexed: false };
    return worker.releaseWorkspace(ref.workspace);
  }

  /** A workspace was deleted (or added again): its tenant's worker, running or starting, is told. */
  deletion(tenant: string, workspace: string, deleted: boolean): void {
    void this.workers
      .get(tenant)
      ?.then((worker) => worker.deletion(workspace, deleted))
      .catch(() => {});
  }

  /** The backbone came back: every worker resyncs. */
  reconnected(): void {
    for (const worker of this.running.values()) worker.reconnected();
  }

  /** Stops every worker (their language servers first), letting each take up to `graceMs`. Idempotent. */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    const starting = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(starting.map((worker) => worker.then((w) => w.close(graceMs)).catch(() => {})));
  }
}

/** A directory itself, not a link to one (lstat): a tenant folder cannot be redirected. */
function isRealDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
