// Requests to a session's server: each with a timeout, cancelled ($/cancelRequest) when it runs
// out or the caller aborts, ended at once when the session fails or closes, and asked again after
// a short pause when the server answers that the content changed or it cancelled the work. A
// timeout is handed to the liveness check (sessionHealth.ts); any answer tells it the server keeps up.
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import { type CancellationToken, CancellationTokenSource, ResponseError } from "vscode-languageserver-protocol";
import { RunnerError } from "../../errors.js";
import type { LanguageServerConfig } from "../languages/languageRegistry.js";
import { requestTimeoutMs } from "./requestDeadline.js";
import { inRequestSpan, inTracedCall } from "./requestSpan.js";
import { isRetryable, SERVER_ERROR_RETRY_DELAYS_MS, serverAnswerError } from "./serverErrors.js";
import { type FailureRecord, isConnectionFailure } from "./sessionFailure.js";
import { LIVENESS_PROBE_METHOD } from "./sessionHealth.js";

/** Per-request timeout when the language sets none, ms (default 30 000). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** How long a request whose connection broke waits for the server's exit to be reported, in ms. */
const EXIT_REPORT_WAIT_MS = 1000;

export interface SendOptions {
  /** How long the server has to answer, ms; then the request is cancelled and fails with TIMEOUT. */
  timeoutMs: number;
  /** The caller's abort: cancels the request, which fails with TIMEOUT. */
  signal?: AbortSignal;
  /** A timeout starts a liveness check (default true; false for the handshake, probes and round trips). */
  checkLiveness?: boolean;
  /** The liveness probe itself: its answer says nothing of the server keeping up (default false). */
  isProbe?: boolean;
  /** A timeout counts towards maxConsecutiveTimeouts (default true). */
  countTimeout?: boolean;
}

/** What the channel needs of the session's health (SessionHealth): its end, and news of answers and timeouts. */
export interface ChannelHealth {
  readonly failures: FailureRecord;
  /** Liveness probe timeout, ms: a caller's deadline leaves room for it, and round trips wait as long. */
  readonly probeTimeoutMs: number;
  /** How long the server has kept a CPU busy without answering (ms), when a missed probe found it working. */
  readonly busyForMs: number | undefined;
  heardFrom(method: string): void;
  afterTimeout(method: string, timeoutMs: number, countTimeout: boolean): void;
}

export interface RequestChannelHost {
  readonly connection: MessageConnection;
  readonly language: LanguageServerConfig;
  /** Real path of the workspace root: kept out of the server's error messages. */
  readonly root: string;
  readonly health: ChannelHealth;
  /** A request starts: the session is busy. */
  onStart(): void;
  /** A request ended: the session's state may have changed. */
  onEnd(): void;
}

export class RequestChannel {
  constructor(private readonly host: RequestChannelHost) {}

  /**
   * Sends `method` with the language's timeout (or less, under the caller's deadline) and asks
   * again, up to SERVER_ERROR_RETRY_DELAYS_MS, while the server answers with a retryable error.
   * Error answers become RunnerErrors (serverErrors.ts).
   */
  async request<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R> {
    const languageTimeoutMs = this.host.language.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    for (let attempt = 0; ; attempt++) {
      const timeoutMs = requestTimeoutMs(signal, languageTimeoutMs, this.host.health.probeTimeoutMs);
      try {
        // Only a request given the language's whole timeout counts towards maxConsecutiveTimeouts:
        // a caller's short deadline says nothing about the server.
        return await this.send<R>(method, params, { signal, timeoutMs, countTimeout: timeoutMs >= languageTimeoutMs });
      } catch (error) {
        if (!(error instanceof ResponseError)) throw error;
        // Content modified or cancelled by the server: the same question has an answer a moment later.
        const pause = SERVER_ERROR_RETRY_DELAYS_MS[attempt];
        if (isRetryable(error) && pause !== undefined && !signal?.aborted) {
          await delay(pause);
          continue;
        }
        throw serverAnswerError(this.host.language.id, method, error, this.host.root);
      }
    }
  }

  /**
   * Resolves once the server answered a request sent now, whatever the answer (the liveness
   * probe's MethodNotFound included) or none within the probe timeout: what it sent before has arrived.
   */
  roundTrip(): Promise<void> {
    const options = { timeoutMs: this.host.health.probeTimeoutMs, checkLiveness: false };
    return this.send(LIVENESS_PROBE_METHOD, null, options).then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * Sends `method` once; the server's error answers are thrown as they are (ResponseError). Inside
   * a traced call, the request is a span of its own (liveness probes are not).
   */
  send<R>(method: string, params: unknown, options: SendOptions): Promise<R> {
    if (options.isProbe || !inTracedCall()) return this.sendOnce(method, params, options);
    return inRequestSpan(method, this.host.language.id, () => this.sendOnce<R>(method, params, options));
  }

  private async sendOnce<R>(method: string, params: unknown, options: SendOptions): Promise<R> {
    const { failures } = this.host.health;
    failures.assertUsable();
    const canceller = new RequestCanceller(options.timeoutMs, options.signal);
    // A server that dies leaves its pending requests unanswered: the failure ends them.
    const unsubscribe = failures.onEnd(canceller.stop);
    this.host.onStart();
    try {
      // A method the server must not be told to cancel only stops being waited for (uncancelledMethods).
      const pending = this.host.language.uncancelledMethods?.includes(method)
        ? this.host.connection.sendRequest(method, params)
        : this.host.connection.sendRequest(method, params, canceller.token);
      // Settles later (answer to a cancelled request, or disposal) with no one waiting.
      pending.catch(() => {});
      const answer = (await Promise.race([pending, canceller.stopped])) as R;
      if (!options.isProbe) this.host.health.heardFrom(method);
      return answer;
    } catch (error) {
      // The connection broke under the request (a write to a killed server, a disposed connection):
      // the server is dying, and its exit, told a moment later, is the answer to give.
      if (!failures.failure && isConnectionFailure(error)) await failures.endedWithin(EXIT_REPORT_WAIT_MS);
      throw this.errorFor(method, error, canceller.timedOut, options);
    } finally {
      unsubscribe();
      this.host.onEnd();
      canceller.close();
    }
  }

  /** What a request that did not get its answer fails with. */
  private errorFor(method: string, error: unknown, timedOut: boolean, options: SendOptions): unknown {
    const { failures } = this.host.health;
    const { timeoutMs, signal, checkLiveness = true, isProbe = false, countTimeout = true } = options;
    if (failures.failure) return failures.failureError();
    if (timedOut) {
      if (checkLiveness) this.host.health.afterTimeout(method, timeoutMs, countTimeout);
      const busyMs = this.host.health.busyForMs;
      if (busyMs !== undefined) {
        return new RunnerError(
          "TIMEOUT",
          `the ${this.host.language.id} language server is busy: it has kept a CPU busy for ${Math.round(busyMs / 1000)} s without answering (a very large file or project being analysed), and did not answer ${method} within ${timeoutMs} ms; it answers once that work is done — try again in a minute`,
        );
      }
      return new RunnerError(
        "TIMEOUT",
        `the ${this.host.language.id} language server did not answer ${method} within ${timeoutMs} ms; try again, or narrow the request`,
      );
    }
    if (signal?.aborted) return new RunnerError("TIMEOUT", `${method} was cancelled by the caller`);
    if (failures.closed) return failures.stoppedError();
    // The server answered, with an error: it is alive.
    if (!isProbe) this.host.health.heardFrom(method);
    return error;
  }
}

/**
 * Ends one request on our side when it times out or its caller aborts, and tells the server
 * ($/cancelRequest). Cancelling alone does not end the pending request (vscode-jsonrpc waits for
 * the server's answer, which a hung server never gives): `stopped` rejects instead.
 */
class RequestCanceller {
  readonly stopped: Promise<never>;
  /**
   * Asked for at once: cancel() on a source whose token was never asked for, once disposed, throws
   * (vscode-jsonrpc swaps in a frozen token) — a late timer or abort must never crash the runner.
   */
  readonly token: CancellationToken;
  timedOut = false;
  private readonly source = new CancellationTokenSource();
  private readonly timer: NodeJS.Timeout;
  private reject: (reason: Error) => void = () => {};
  private closed = false;

  /** Ends the wait for the answer with `reason` (the session's failure, a timeout, an abort). */
  readonly stop = (reason: Error): void => this.reject(reason);

  private readonly onAbort = (): void => {
    this.source.cancel();
    this.stop(new Error("aborted"));
  };

  constructor(
    timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.token = this.source.token;
    this.stopped = new Promise<never>((_, reject) => {
      this.reject = reject;
    });
    // Only the request's race reads it; a failure told before the race (sendRequest throwing on a
    // dead connection) must not surface as an unhandled rejection.
    this.stopped.catch(() => {});
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.source.cancel();
      this.stop(new Error("timeout"));
    }, timeoutMs);
    signal?.addEventListener("abort", this.onAbort, { once: true });
    if (signal?.aborted) this.onAbort();
  }

  /** Clears the timer and the abort listener. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener("abort", this.onAbort);
    this.source.dispose();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
