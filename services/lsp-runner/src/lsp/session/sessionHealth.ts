// Whether a session's server can still be used. Its first failure is recorded once
// (sessionFailure.ts) and, when the server will not answer `shutdown`, the server is stopped, so
// that the next request gets a new one. Failures found here (the session reports exits and broken
// framing): after a request timed out, a liveness probe with a short timeout decides (a server
// that misses it, or answers it but lets too many requests in a row time out, is failed); a
// stopped process in the server's tree, or with `watchProcessTree` a lost one. Any answer clears
// the suspicion. A server that misses the probe while its tree keeps a CPU busy is working, not
// hung — pyright parsing a 20 MB module blocks its message loop for minutes, and restarting it
// only starts the same work again — so it is left to finish for its language's maxBusyMs, unless
// file events reached it meanwhile or in the last minute (a folder swapped in a loop floods
// tsserver with reloads: with patience the cross-tenant swap race took 770 s, restarted at once 388 s).
import { ExecuteCommandRequest, InitializeRequest, ResponseError } from "vscode-languageserver-protocol";
import type { LanguageServerConfig } from "../languages/languageRegistry.js";
import { groupCpuMs } from "../process/processGroups.js";
import { ProcessTreeWatch } from "../process/processTreeWatch.js";
import { FailureRecord, isConnectionFailure, type SessionFailure } from "./sessionFailure.js";
import { TSSERVER_REQUEST_COMMAND } from "./tsserverDiagnostics.js";

/** Liveness probe timeout after a request timed out, ms (default 5 000). */
export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
/** Requests in a row that may time out while the probe still answers, before a restart (default 3). */
export const DEFAULT_MAX_CONSECUTIVE_TIMEOUTS = 3;
/**
 * How long a server may keep a CPU busy without answering before it is restarted, ms, when neither
 * the policy nor its language says (0: at once, as a hung one). The built-in servers known to work
 * that long on very large files (pyright on a 20 MB module, ~42 s) set their own.
 */
export const DEFAULT_MAX_BUSY_MS = 0;
/** File events this recent (ms) make a busy server one flooded by changes: replaced at once (60 000). */
const RECENT_FILE_EVENTS_MS = 60_000;
/**
 * Share of one CPU the server's tree must use while it misses the probe to count as working (0.1):
 * a blocked server uses none, and a working one on a loaded 2-core machine may get a quarter or less.
 */
const BUSY_CPU_SHARE = 0.1;
/**
 * The liveness probe. LSP 3.17 ("$ Notifications and Requests") requires a server to answer a
 * request whose method starts with `$/` and that it does not know with a MethodNotFound error, so
 * any answer — that error included — proves the server's message loop is alive. It needs no open
 * document, costs the server nothing and works for every server, whatever its capabilities.
 */
export const LIVENESS_PROBE_METHOD = "$/lspmesh/ping";

/** The session options that say how a server's health is checked. */
export interface HealthPolicy {
  language: LanguageServerConfig;
  /** Liveness probe timeout, ms (default DEFAULT_PROBE_TIMEOUT_MS). */
  probeTimeoutMs?: number;
  /** Requests in a row that may time out while the probe answers (default DEFAULT_MAX_CONSECUTIVE_TIMEOUTS). */
  maxConsecutiveTimeouts?: number;
  /** A stopped process in the server's tree fails the session (default true). */
  restartStoppedServers?: boolean;
  /** How long a server missing the probe with a CPU busy is left to work, ms (default its language's maxBusyMs). */
  maxBusyMs?: number;
}

export interface SessionHealthHost {
  readonly policy: HealthPolicy;
  /** The handshake completed (failures are worded for a running server, not a starting one). */
  isInitialized(): boolean;
  /** Sends the probe within timeoutMs (its own timeout starts no further check). */
  probe(method: string, params: unknown, timeoutMs: number): Promise<unknown>;
  /** Kills the server without asking it to shut down. */
  stopServer(): void;
  /** Told once, after the first failure was recorded. */
  onFailure(failure: SessionFailure): void;
}

export class SessionHealth {
  readonly failures: FailureRecord;
  /** Liveness probe timeout, ms. */
  readonly probeTimeoutMs: number;
  private answeredValue = false;
  private suspectValue = false;
  private consecutiveTimeouts = 0;
  /** Since when (ms since the epoch) the server has worked without answering, when a probe found it so. */
  private busySince: number | undefined;
  /** When file events were last sent to the server, ms since the epoch. */
  private fileEventsAt: number | undefined;
  private check: Promise<void> | undefined;
  private treeWatch: ProcessTreeWatch | undefined;
  /** The server's process group (its leader's pid), once it runs. */
  private serverGroup: number | undefined;

  constructor(private readonly host: SessionHealthHost) {
    const { language, probeTimeoutMs } = host.policy;
    this.failures = new FailureRecord({ languageId: language.id, isInitialized: () => host.isInitialized() });
    this.probeTimeoutMs = probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  }

  /** The server answered a request or pushed diagnostics since it started ("ready" needs one answer). */
  get answered(): boolean {
    return this.answeredValue;
  }

  /** A request timed out and the server has not answered one since. */
  get suspect(): boolean {
    return this.suspectValue;
  }

  /** How long the server has kept a CPU busy without answering (ms), when a missed probe found it working. */
  get busyForMs(): number | undefined {
    return this.busySince === undefined ? undefined : Date.now() - this.busySince;
  }

  /** The liveness check under way after a timeout, if any (resolves when it is decided). */
  get pendingCheck(): Promise<void> | undefined {
    return this.check;
  }

  /** Records the first failure, ends pending requests with it, and with `stop` kills the server. */
  fail(failure: SessionFailure, { stop = false } = {}): void {
    if (this.failures.ended) return;
    this.treeWatch?.close();
    this.failures.record(failure);
    // A server that stopped answering or broke the framing will not answer `shutdown` either.
    if (stop) this.host.stopServer();
    this.host.onFailure(failure);
  }

  /** File events were sent to the server: work it did not choose, which patience must not wait out. */
  noteFileEvents(): void {
    this.fileEventsAt = Date.now();
  }

  /** Diagnostics pushed for an open document: the server's answer to didOpen/didChange. */
  noteDiagnostics(): void {
    this.answeredValue = true;
  }

  /** The server answered `method` (an error included): it keeps up. */
  heardFrom(method: string): void {
    if (method === LIVENESS_PROBE_METHOD || method === InitializeRequest.method) return;
    this.answeredValue = true;
    this.suspectValue = false;
    this.consecutiveTimeouts = 0;
    this.busySince = undefined;
  }

  /**
   * After `method` timed out (after timeoutMs): the server is suspect, and one probe at a time
   * decides whether it is still there. countTimeout: the timeout counts towards the limit.
   */
  afterTimeout(method: string, timeoutMs: number, countTimeout: boolean): void {
    if (countTimeout) this.consecutiveTimeouts++;
    this.suspectValue = true;
    if (this.check || this.failures.ended) return;
    this.check = this.decide(method, timeoutMs).finally(() => {
      this.check = undefined;
    });
  }

  private async decide(method: string, timeoutMs: number): Promise<void> {
    const probeMs = this.probeTimeoutMs;
    const maxTimeouts = this.host.policy.maxConsecutiveTimeouts ?? DEFAULT_MAX_CONSECUTIVE_TIMEOUTS;
    const [probeMethod, probeParams] = this.livenessProbe();
    const cpuBefore = await this.cpuMs();
    const probedAt = performance.now();
    const alive = await this.host.probe(probeMethod, probeParams, probeMs).then(
      () => true,
      // Any answer, an error included (most servers do not know the probe's method), is a sign of life.
      (error: unknown) => error instanceof ResponseError && !isConnectionFailure(error) && !this.failures.failure,
    );
    if (!alive) {
      const missed = `${method} timed out after ${timeoutMs} ms and a liveness probe got no answer within ${probeMs} ms`;
      if (!(await this.keptCpuBusy(cpuBefore, probedAt))) {
        this.fail({ code: "TIMEOUT", reason: `stopped answering (${missed})` }, { stop: true });
        return;
      }
      // Working: the timeouts are its work's, not a sign of a server that answers nothing.
      this.consecutiveTimeouts = 0;
      this.busySince ??= Date.now() - timeoutMs - probeMs;
      const busyMs = Date.now() - this.busySince;
      // Events since it became busy, or in the last minute: a watch paused by an event storm
      // (up to 30 s) delivers a folder's changes only when it resumes.
      const since = Math.min(this.busySince, Date.now() - RECENT_FILE_EVENTS_MS);
      const flooded = this.fileEventsAt !== undefined && this.fileEventsAt >= since;
      if (flooded || busyMs >= this.maxBusyMs()) {
        const why = flooded ? "while file events kept arriving" : "without answering";
        const reason = `stopped answering (${missed}; it has kept a CPU busy for ${Math.round(busyMs / 1000)} s ${why})`;
        this.fail({ code: "TIMEOUT", reason }, { stop: true });
      }
    } else if (this.consecutiveTimeouts >= maxTimeouts) {
      const reason = `let ${this.consecutiveTimeouts} requests in a row time out`;
      this.fail({ code: "UNAVAILABLE", reason }, { stop: true });
    }
  }

  private maxBusyMs(): number {
    const { policy } = this.host;
    return policy.maxBusyMs ?? policy.language.maxBusyMs ?? DEFAULT_MAX_BUSY_MS;
  }

  /** CPU time the server's process group has used so far, ms; undefined when it cannot be read. */
  private cpuMs(): Promise<number | undefined> {
    return this.serverGroup === undefined ? Promise.resolve(undefined) : groupCpuMs(this.serverGroup);
  }

  /** Whether the server's tree used at least BUSY_CPU_SHARE of a CPU since `cpuBefore` (ms) was read at `since`. */
  private async keptCpuBusy(cpuBefore: number | undefined, since: number): Promise<boolean> {
    if (cpuBefore === undefined || this.failures.ended) return false;
    const cpuAfter = await this.cpuMs();
    if (cpuAfter === undefined) return false;
    return cpuAfter - cpuBefore >= BUSY_CPU_SHARE * (performance.now() - since);
  }

  /**
   * The request that proves the server's message loop alive. typescript-language-server answers
   * `$/` requests itself, whatever its tsserver does, so for it the probe is tsserver's own cheap
   * `status` command, which goes to the tsserver that answers semantic requests.
   */
  private livenessProbe(): [method: string, params: unknown] {
    if (this.host.policy.language.diagnosticsPull === "tsserverRequest") {
      return [ExecuteCommandRequest.method, { command: TSSERVER_REQUEST_COMMAND, arguments: ["status", {}] }];
    }
    return [LIVENESS_PROBE_METHOD, null];
  }

  /**
   * Watches the tree of the server whose group leader is `pid`: a stopped process fails the
   * session (TIMEOUT: it would never answer); with `watchProcessTree`, so does a long-lived
   * process of the tree dying.
   */
  watchProcessTree(pid: number | undefined): void {
    if (pid === undefined) return;
    this.serverGroup = pid;
    const { language, restartStoppedServers: watchStopped = true } = this.host.policy;
    if (!watchStopped && !language.watchProcessTree) return;
    const failAndStop = (code: SessionFailure["code"], reason: string) => this.fail({ code, reason }, { stop: true });
    this.treeWatch = new ProcessTreeWatch(pid, {
      onStopped: !watchStopped
        ? undefined
        : (stopped) =>
            failAndStop(
              "TIMEOUT",
              `stopped answering: ${stopped.name} (pid ${stopped.pid}) was stopped (SIGSTOP or a debugger) and has been killed`,
            ),
      onLoss: language.watchProcessTree
        ? (lost) =>
            failAndStop("UNAVAILABLE", `lost a process of its tree (${lost.name}, pid ${lost.pid}) and was restarted`)
        : undefined,
    });
    this.treeWatch.start();
  }

  /** Checks the process tree now; throws the session's failure when that (or anything) failed it. */
  async checkProcessTree(): Promise<void> {
    await this.treeWatch?.check();
    if (this.failures.failure) throw this.failures.failureError();
  }

  /** Stops watching the process tree and ends what waits on the session. Idempotent; true the first time. */
  close(): boolean {
    this.treeWatch?.close();
    return this.failures.close();
  }
}
