// The supervisor's handle on one tenant's worker process: starts it, forwards Runner calls to it
// over the private pipe, and carries what the worker publishes to the real event bus — only when
// it names the worker's own tenant. A worker that dies fails its calls under way (UNAVAILABLE) and
// is replaced on the next call; it never takes another tenant's calls with it.
import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { GrpcStatusError } from "@lspmesh/grpc";
import { waitAtMost } from "@lspmesh/service-kit";
import {
  CancellationTokenSource,
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
} from "vscode-jsonrpc/node.js";
import { RunnerError } from "../errors.js";
import type { Closeable, RunnerEventBus } from "../events/eventBus.js";
import { PipeMessageWriter } from "../lsp/process/pipeMessageWriter.js";
import { CONNECTION_MESSAGE, type ConnectionMessage } from "./directCalls.js";
import { parseWarmReport, type WarmSession } from "./warmReport.js";
import { NO_LOAD, parseWorkerLoad, type WorkerLoad } from "./workerLoad.js";
import {
  type CallParams,
  type CallResult,
  type DiagnosticsMessage,
  type EpochMessage,
  type ReleasedWorkspace,
  type StatusMessage,
  type SubscribeParams,
  type SymbolIndexFileEntry,
  type SymbolIndexMeta,
  TO_SUPERVISOR,
  TO_WORKER,
  type WorkerInit,
  type WorkerReady,
} from "./workerProtocol.js";
import { WorkerTraces } from "./workerTraces.js";

export interface TenantWorkerOptions {
  init: WorkerInit;
  /** Starts the worker process (confined, clean environment) with stdin/stdout/stderr piped. */
  spawn: () => ChildProcess;
  bus: RunnerEventBus;
  log: (entry: Record<string, unknown>) => void;
  /** How long the worker may take to start and build its core, ms (default 30 000). */
  startTimeoutMs?: number;
  /** A workspace deleted in the control plane: its stored index is not taken up again. */
  isDeleted?: (tenant: string, workspace: string) => boolean;
}

/** How long a worker that answered the shutdown request may take to exit once its stdin closes, ms (3 000). */
const WORKER_EXIT_MS = 3_000;

/** Thrown for calls a worker cannot take: it stopped. */
export function workerUnavailable(tenant: string): RunnerError {
  return new RunnerError(
    "UNAVAILABLE",
    `this runner's worker for tenant '${tenant}' stopped; it is restarted on the next call, try again`,
  );
}

export class TenantWorker {
  readonly tenant: string;
  /** The worker's language servers and answer counts (reported every 2 s). */
  load: WorkerLoad = NO_LOAD;
  /** The worker's warm sessions (reported every 2 s). */
  warm: WarmSession[] = [];
  private readonly subscriptions = new Map<number, Closeable>();
  private exitedFlag = false;
  /** Rejects the calls under way when the process ends (one entry per call, removed when it ends). */
  private readonly failOnExit = new Set<(error: RunnerError) => void>();
  /** The traces of the calls under way: the only ones the worker's spans may join. */
  private readonly traces = new WorkerTraces();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly connection: MessageConnection,
    private readonly options: TenantWorkerOptions,
    /** Settles when the process ended (for whatever reason). */
    readonly exited: Promise<void>,
  ) {
    this.tenant = options.init.tenant;
  }

  static async start(options: TenantWorkerOptions): Promise<{ worker: TenantWorker; ready: WorkerReady }> {
    const child = options.spawn();
    const { stdin, stdout, stderr } = child;
    if (!stdin || !stdout || !stderr) throw new Error("a worker needs piped stdin, stdout and stderr");
    // A dead worker's pipe fails writes (EPIPE). Its exit fails the calls under way (below); a
    // failed write must not surface as well (vscode-jsonrpc turns one into an unhandled rejection).
    stdin.on("error", () => {});
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
    const connection = createMessageConnection(
      new StreamMessageReader(stdout),
      new PipeMessageWriter(stdin, () => stdin.destroyed || !stdin.writable),
    );
    const worker = new TenantWorker(child, connection, options, exited);
    worker.wire(stderr);
    connection.listen();
    const timeoutMs = options.startTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      const ready = await Promise.race([
        connection.sendRequest<WorkerReady>(TO_WORKER.init, options.init),
        exited.then(() => {
          throw new Error(`the worker for tenant '${worker.tenant}' exited while starting`);
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the worker did not start within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return { worker, ready };
    } catch (error) {
      await worker.close(0);
      throw new RunnerError(
        "UNAVAILABLE",
        `this runner could not start a worker for tenant '${worker.tenant}' (${error instanceof Error ? error.message : String(error)}); see the runner's log`,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** True once the worker process ended. */
  get exitedAlready(): boolean {
    return this.exitedFlag;
  }

  /** One Runner call: resolves with the answer's protobuf bytes, or throws the worker's status. */
  async call(params: CallParams, signal: AbortSignal): Promise<Uint8Array> {
    if (this.exitedFlag || this.closing) throw workerUnavailable(this.tenant);
    const cancel = new CancellationTokenSource();
    // A cancellation is a message to the worker: none once its pipe is gone.
    const onAbort = () => {
      if (!this.exitedFlag) cancel.cancel();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    let fail: (error: RunnerError) => void = () => {};
    // Not a race against `exited` itself: every call would leave a reaction on that promise for as
    // long as the worker lives.
    const ended = new Promise<never>((_, reject) => {
      fail = reject;
    });
    this.failOnExit.add(fail);
    const endTrace = this.traces.begin(params.trace);
    try {
      const result = await Promise.race([
        this.connection.sendRequest<CallResult>(TO_WORKER.call, params, cancel.token),
        ended,
      ]);
      if ("answer" in result) return Buffer.from(result.answer, "base64");
      if ("status" in result)
        throw new GrpcStatusError(result.status.code, result.status.message, result.status.trailers);
      throw new Error(result.failure);
    } catch (error) {
      // The pipe closed under the call: the worker died.
      if (this.exitedFlag && !(error instanceof GrpcStatusError || error instanceof RunnerError)) {
        throw workerUnavailable(this.tenant);
      }
      throw error;
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.failOnExit.delete(fail);
      endTrace();
      cancel.dispose();
    }
  }

  /** Asks the worker to stop its language servers, then ends the process. Idempotent. */
  close(graceMs: number): Promise<void> {
    this.closing ??= (async () => {
      if (!this.exitedFlag) {
        let timer: NodeJS.Timeout | undefined;
        const replied = await Promise.race([
          this.connection.sendRequest(TO_WORKER.shutdown, { graceMs }).then(
            () => true,
            () => false,
          ),
          this.exited.then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), graceMs + 5_000);
          }),
        ]);
        clearTimeout(timer);
        // Replied: everything it sent before (its servers' last status) has been read. Closing its
        // stdin lets it exit on its own; exiting before that could lose what it had not yet written.
        if (replied && !this.exitedFlag) {
          this.child.stdin?.end();
          await waitAtMost(this.exited, WORKER_EXIT_MS);
        }
        if (!this.exitedFlag) this.child.kill("SIGKILL");
        await this.exited;
      }
      this.dropSubscriptions();
      this.connection.dispose();
    })();
    return this.closing;
  }

  /**
   * The workspace was deleted: the worker stops its servers, indexing and watches, and answers
   * once they did. Nothing to release when the worker is gone.
   */
  async releaseWorkspace(workspace: string): Promise<ReleasedWorkspace> {
    const nothing: ReleasedWorkspace = { servers: 0, indexed: false };
    if (this.exitedFlag || this.closing) return nothing;
    return Promise.race([
      this.connection.sendRequest<ReleasedWorkspace>(TO_WORKER.releaseWorkspace, { workspace }),
      this.exited.then(() => nothing),
    ]);
  }

  /**
   * Hands an authorized connection to the worker, which serves the tenant's calls on it itself
   * (direct worker connections); `head` is what was read past the CONNECT request. False (and the
   * socket destroyed) when the worker cannot take it: stopped, or started without an IPC channel.
   */
  adopt(socket: Socket, head: Buffer): boolean {
    if (this.exitedFlag || this.closing || !this.child.connected) {
      socket.destroy();
      return false;
    }
    const message: ConnectionMessage = {
      kind: CONNECTION_MESSAGE,
      ...(head.length > 0 ? { head: head.toString("base64") } : {}),
    };
    // The runner's copy of the socket is closed once it is sent (keepOpen false).
    this.child.send(message, socket, { keepOpen: false }, (error) => {
      if (error) socket.destroy();
    });
    return true;
  }

  /** A workspace of the tenant was deleted (or added again) in the control plane. */
  deletion(workspace: string, deleted: boolean): void {
    if (!this.exitedFlag)
      void this.connection.sendNotification(TO_WORKER.deletion, { workspace, deleted }).catch(() => {});
  }

  /** The backbone reconnected: the worker resyncs its open documents. */
  reconnected(): void {
    if (!this.exitedFlag) void this.connection.sendNotification(TO_WORKER.reconnected).catch(() => {});
  }

  private wire(stderr: NodeJS.ReadableStream): void {
    const { bus, log } = this.options;
    const tenant = this.tenant;
    void this.exited.then(() => {
      this.exitedFlag = true;
      for (const fail of this.failOnExit) fail(workerUnavailable(tenant));
      this.dropSubscriptions();
    });
    this.child.once("exit", (code, signal) => {
      if (!this.closing) log({ level: "warn", msg: "tenant worker exited", tenant, code, signal });
    });
    this.child.on("error", (error) =>
      log({ level: "error", msg: "tenant worker failed", tenant, error: String(error) }),
    );
    this.logStderr(stderr);
    // Everything below names a tenant: the worker's own, or it is refused and logged.
    const own = (named: string, what: string): boolean => {
      if (named === tenant) return true;
      log({ level: "warn", msg: "tenant worker named another tenant; refused", tenant, what });
      return false;
    };
    const c = this.connection;
    c.onNotification(TO_SUPERVISOR.publishDiagnostics, (message: DiagnosticsMessage) => {
      if (own(message?.tenant, "diagnostics")) bus.publishDiagnostics(message);
    });
    c.onNotification(TO_SUPERVISOR.clearDiagnostics, (p: { tenant: string; workspace: string; file: string }) => {
      if (own(p?.tenant, "diagnostics")) bus.clearDiagnostics(p.tenant, p.workspace, p.file);
    });
    c.onNotification(TO_SUPERVISOR.publishStatus, (message: StatusMessage) => {
      if (own(message?.tenant, "status")) bus.publishStatus(message);
    });
    c.onNotification(TO_SUPERVISOR.publishEpoch, (message: EpochMessage) => {
      if (own(message?.tenant, "epoch")) bus.publishEpoch(message);
    });
    // What the worker sent before this request is published by now (the pipe keeps order).
    c.onRequest(TO_SUPERVISOR.flushPublished, async () => {
      await bus.flushPublished();
      return {};
    });
    c.onRequest(TO_SUPERVISOR.subscribe, (p: SubscribeParams) => {
      if (!own(p?.tenant, "file events")) throw new Error("refused");
      this.subscriptions.get(p.subscription)?.close();
      const deliver = (payload: Uint8Array) => ({
        subscription: p.subscription,
        payload: Buffer.from(payload).toString("base64"),
      });
      this.subscriptions.set(
        p.subscription,
        p.answer
          ? bus.subscribeFileEvents(p.tenant, p.workspace, (payload) =>
              c.sendRequest(TO_WORKER.fileEvents, deliver(payload)),
            )
          : bus.observeFileEvents(p.tenant, p.workspace, (payload) => {
              void c.sendNotification(TO_WORKER.observedFileEvents, deliver(payload)).catch(() => {});
            }),
      );
      return {};
    });
    c.onNotification(TO_SUPERVISOR.unsubscribe, (p: { subscription: number }) => {
      this.subscriptions.get(p?.subscription)?.close();
      this.subscriptions.delete(p?.subscription);
    });
    c.onRequest(TO_SUPERVISOR.indexRead, async (p: { tenant: string; workspace: string }) => {
      if (!own(p?.tenant, "symbol index")) throw new Error("refused");
      const stored = await bus.symbolIndex.read(p.tenant, p.workspace);
      return { ...(stored.meta ? { meta: stored.meta } : {}), files: [...stored.files.values()] };
    });
    c.onRequest(TO_SUPERVISOR.indexPutFile, (p: { tenant: string; workspace: string; entry: SymbolIndexFileEntry }) => {
      if (!own(p?.tenant, "symbol index")) throw new Error("refused");
      return bus.symbolIndex.putFile(p.tenant, p.workspace, p.entry);
    });
    c.onRequest(TO_SUPERVISOR.indexDeleteFile, (p: { tenant: string; workspace: string; file: string }) => {
      if (!own(p?.tenant, "symbol index")) throw new Error("refused");
      return bus.symbolIndex.deleteFile(p.tenant, p.workspace, p.file);
    });
    c.onRequest(TO_SUPERVISOR.indexPutMeta, (p: { meta: SymbolIndexMeta }) => {
      if (!own(p?.meta?.tenant, "symbol index")) throw new Error("refused");
      return bus.symbolIndex.putMeta(p.meta);
    });
    // Only the worker's own tenant's indexes, whatever it asks for, and none of a deleted workspace.
    c.onRequest(TO_SUPERVISOR.indexOwnedBy, async (p: { runner: string }) =>
      (await bus.symbolIndex.ownedBy(String(p?.runner), [tenant])).filter(
        (ref) => !this.options.isDeleted?.(ref.tenant, ref.workspace),
      ),
    );
    c.onNotification(TO_SUPERVISOR.log, (p: { entry?: Record<string, unknown> }) => {
      const entry = p?.entry && typeof p.entry === "object" ? p.entry : {};
      log({ ...entry, tenant, worker: true });
    });
    c.onNotification(TO_SUPERVISOR.spans, (p: unknown) => this.traces.receive(p));
    c.onNotification(TO_SUPERVISOR.load, (p: unknown) => {
      this.load = parseWorkerLoad(p);
    });
    c.onNotification(TO_SUPERVISOR.warm, (p: unknown) => {
      this.warm = parseWarmReport(p, tenant);
    });
  }

  /** The worker's stderr, a line at a time, as warnings. */
  private logStderr(stderr: NodeJS.ReadableStream): void {
    const { log } = this.options;
    let pending = "";
    stderr.setEncoding?.("utf8");
    stderr.on("data", (chunk: string) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      // Bounded: a worker cannot make the supervisor buffer without end.
      if (pending.length > 16_384) pending = "";
      for (const line of lines)
        if (line.trim())
          log({ level: "warn", msg: "tenant worker stderr", tenant: this.tenant, line: line.slice(0, 2_000) });
    });
  }

  private dropSubscriptions(): void {
    for (const subscription of this.subscriptions.values()) subscription.close();
    this.subscriptions.clear();
  }
}
