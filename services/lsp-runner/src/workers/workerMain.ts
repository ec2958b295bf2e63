// Entry of one tenant's worker process: everything that touches that tenant's files (document
// sync, language servers, edits, snippets, diagnostics, the symbol indexer) runs here, already
// confined (the launcher applied Landlock and exec'd this file, see confinement/), with a clean
// environment and no secret. It talks only to its supervisor, over stdin/stdout (JSON-RPC); its
// stderr is free-form diagnostics the supervisor logs. It exits when the supervisor goes away.
// Started with an IPC channel, it also serves the connections its supervisor hands it (directCalls.ts).
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Metadata } from "@grpc/grpc-js";
import { GrpcStatusError } from "@lspmesh/grpc";
import { REQUEST_ID_METADATA, Runner } from "@lspmesh/proto";
import { type Tracing, withTraceParent } from "@lspmesh/service-kit";
import { createMessageConnection, type MessageConnection, StreamMessageReader } from "vscode-jsonrpc/node.js";
import { publishedBeforeReplyInterceptor } from "../grpc/publishedBeforeReply.js";
import { loadLanguageRegistry } from "../lsp/languages/languageConfig.js";
import { PipeMessageWriter } from "../lsp/process/pipeMessageWriter.js";
import { type RunnerCore, startRunnerCore } from "../runnerCore.js";
import { warmUpSessions } from "../sessionWarmUp.js";
import { TenantAllowlistLocator } from "../workspace/tenantAllowlist.js";
import { VolumeWorkspaceLocator } from "../workspace/workspaceLocator.js";
import { DeletedWorkspaceLocator } from "../workspaceDeletions.js";
import { type DirectCalls, serveDirectCalls } from "./directCalls.js";
import { SupervisorBus } from "./supervisorBus.js";
import { reportWarmSessions } from "./warmReport.js";
import { workerLoadOf } from "./workerLoad.js";
import {
  type CallParams,
  type CallResult,
  type ReleasedWorkspace,
  TO_SUPERVISOR,
  TO_WORKER,
  type WorkerInit,
  type WorkerReady,
} from "./workerProtocol.js";
import { startWorkerTracing } from "./workerTracing.js";

type Handler = (
  request: unknown,
  context: { metadata: Metadata; signal: AbortSignal; deadlineMs: number },
) => Promise<unknown>;

/** How often the worker reports its running sessions (the registry's load, the metrics), ms. */
const LOAD_REPORT_MS = 2_000;

/** Tells the supervisor the worker's load every LOAD_REPORT_MS (the timer does not keep the process alive). */
function reportLoad(connection: MessageConnection, core: () => RunnerCore | undefined): NodeJS.Timeout {
  const timer = setInterval(() => {
    void connection.sendNotification(TO_SUPERVISOR.load, workerLoadOf(core())).catch(() => {});
  }, LOAD_REPORT_MS);
  timer.unref();
  return timer;
}

export function serveWorker(connection: MessageConnection, exit: (code: number) => void): void {
  let core: RunnerCore | undefined;
  let tenant: string | undefined;
  let bus: SupervisorBus | undefined;
  let loadTimer: NodeJS.Timeout | undefined;
  let tracing: Tracing | undefined;
  let direct: DirectCalls | undefined;
  /** The tenant's workspaces deleted in the control plane, as the supervisor tells (NOT_FOUND here too). */
  const deleted = new Set<string>();
  const log = (entry: Record<string, unknown>) =>
    void connection.sendNotification(TO_SUPERVISOR.log, { entry }).catch(() => {});
  reportWarmSessions(connection, () => core?.sessions);

  connection.onRequest(TO_WORKER.init, async (init: WorkerInit): Promise<WorkerReady> => {
    if (core) throw new Error("the worker was initialised already");
    const languages = await loadLanguageRegistry(init.languagesFile);
    tenant = init.tenant;
    if (init.tracing) tracing = await startWorkerTracing(connection);
    bus = new SupervisorBus(connection);
    for (const workspace of init.deleted ?? []) deleted.add(workspace);
    // Only this tenant's workspaces, whatever a request names, and none of those deleted.
    const locator = new DeletedWorkspaceLocator(
      new TenantAllowlistLocator(new VolumeWorkspaceLocator(init.root), [init.tenant]),
      (_tenant, workspace) => deleted.has(workspace),
    );
    core = startRunnerCore({
      runnerId: init.runnerId,
      bus,
      locator,
      languages,
      tenants: [init.tenant],
      maxFileBytes: init.maxFileBytes,
      answerCacheEntries: init.answerCacheEntries,
      answerWarming: init.answerWarming,
      allowGitWrites: init.allowGitWrites,
      sessionPolicy: {
        idleTimeoutMs: init.idleTimeoutMs,
        memoryBudgetBytes: init.memoryBudgetBytes,
        ...(init.tenantLimits ? { tenantLimits: init.tenantLimits } : {}),
        // No sandbox per server: each server inherits the worker's confinement (Landlock forbids the
        // mounts bubblewrap would make), which it shares with no other tenant.
        sandbox: undefined,
        tenantsTrustEachOther: true,
      },
      log,
      watchWorkspaces: init.watchWorkspaces,
      watchDebounceMs: init.watchDebounceMs,
      symbolIndex: init.symbolIndex,
    });
    void warmUpSessions(init.warmUp ?? [], { locator, languages, sessions: core.sessions, log });
    loadTimer = reportLoad(connection, () => core);
    if (process.channel) direct = serveConnections(core, bus, log);
    return { served: core.served, pid: process.pid };
  });

  answerCalls(connection, () => core, log);
  connection.onNotification(TO_WORKER.deletion, (params: { workspace?: unknown; deleted?: unknown }) => {
    if (typeof params?.workspace !== "string") return;
    if (params.deleted === true) deleted.add(params.workspace);
    else deleted.delete(params.workspace);
  });
  answerReleases(connection, () => (core && tenant ? { core, tenant } : undefined));
  const stop = async (graceMs: number) => {
    clearInterval(loadTimer);
    const timer = setTimeout(() => exit(1), graceMs + 5_000);
    timer.unref();
    await direct?.close(graceMs);
    await core?.close();
    await bus?.close();
    await tracing?.close();
  };
  connection.onRequest(TO_WORKER.shutdown, async ({ graceMs }: { graceMs: number }) => {
    await stop(graceMs);
    // Exits when the supervisor closes the pipe (onClose below), once it has read this answer and
    // everything written before it: exiting here could drop messages still being written.
    return {};
  });
  // The supervisor went away (or closed the pipe): no language server may outlive it.
  connection.onClose(() => void stop(0).finally(() => exit(0)));
  connection.listen();
}

/** worker/call: one Runner call relayed by the supervisor, answered with the protobuf bytes. */
function answerCalls(
  connection: MessageConnection,
  runningCore: () => RunnerCore | undefined,
  log: (entry: Record<string, unknown>) => void,
): void {
  connection.onRequest(TO_WORKER.call, async (params: CallParams, token): Promise<CallResult> => {
    const core = runningCore();
    if (!core) return { failure: "the worker was not initialised" };
    const method = Runner.method[params.method as keyof typeof Runner.method];
    const handle = (core.implementation as unknown as Record<string, Handler>)[params.method];
    if (!method || !handle) return { failure: `unknown method ${params.method.slice(0, 64)}` };
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort(new Error("cancelled by client")));
    const metadata = new Metadata();
    if (params.requestId) metadata.set(REQUEST_ID_METADATA, params.requestId);
    try {
      const request = fromBinary(method.input, Buffer.from(params.request, "base64"));
      const context = { metadata, signal: abort.signal, deadlineMs: params.deadlineMs ?? Number.POSITIVE_INFINITY };
      // The supervisor's span for this call (sent only while tracing is on) parents the spans recorded here.
      const answer = await (params.trace
        ? withTraceParent(params.trace, () => handle(request, context))
        : handle(request, context));
      const message = create(method.output, answer as never);
      return { answer: Buffer.from(toBinary(method.output, message)).toString("base64") };
    } catch (error) {
      if (error instanceof GrpcStatusError) {
        return { status: { code: error.code, message: error.message, trailers: error.trailers } };
      }
      log({
        level: "error",
        msg: "unexpected error",
        method: params.method,
        error: String((error as Error)?.stack ?? error),
      });
      return { failure: "the worker failed to answer" };
    }
  });
}

/**
 * The connections the supervisor hands over (direct worker connections): calls that change files
 * or servers answer once their epoch announcements reached NATS, as relayed calls do.
 */
function serveConnections(core: RunnerCore, bus: SupervisorBus, log: (entry: Record<string, unknown>) => void) {
  // The IPC channel alone must not keep the worker alive: it exits when its pipe closes.
  process.channel?.unref();
  return serveDirectCalls({
    implementation: core.implementation,
    interceptors: [publishedBeforeReplyInterceptor(bus)],
    onUnexpectedError: (method, error) =>
      log({ level: "error", msg: "unexpected error", method, error: String((error as Error)?.stack ?? error) }),
    channel: process,
  });
}

/** worker/releaseWorkspace: the core lets go of a deleted workspace of the worker's tenant. */
function answerReleases(
  connection: MessageConnection,
  worker: () => { core: RunnerCore; tenant: string } | undefined,
): void {
  connection.onRequest(
    TO_WORKER.releaseWorkspace,
    async (params: { workspace?: unknown }): Promise<ReleasedWorkspace> => {
      const running = worker();
      if (!running || typeof params?.workspace !== "string") return { servers: 0, indexed: false };
      return running.core.releaseWorkspace({ tenant: running.tenant, workspace: params.workspace });
    },
  );
}

// Run as a process: the pipe is stdin/stdout.
if (process.argv[1]?.endsWith("workerMain.js")) {
  const connection = createMessageConnection(
    new StreamMessageReader(process.stdin),
    new PipeMessageWriter(process.stdout),
  );
  serveWorker(connection, (code) => process.exit(code));
}
