// How a session's end is recorded and worded: the first failure of its server (or the session's
// close) is kept once, ends every request and wait under way, and becomes the error callers get,
// with what the server last wrote on stderr. Deciding that a server failed is the caller's job
// (languageSession.ts for exits and framing, sessionHealth.ts for hangs and broken trees).
import { ErrorCodes, ResponseError } from "vscode-languageserver-protocol";
import { RunnerError } from "../../errors.js";
import type { ProcessExit } from "../process/languageServerProcess.js";
import type { FramingProblem } from "../process/messageSizeGuard.js";

/** Why a server can no longer be used; `code` is what requests to it fail with. */
export interface SessionFailure {
  /** TIMEOUT for a server that stopped answering (hung, stopped), UNAVAILABLE for one that is gone. */
  code: "UNAVAILABLE" | "SERVER_FAILED" | "TIMEOUT";
  /** Completes "the <language> language server …", e.g. "exited unexpectedly (SIGKILL)". */
  reason: string;
}

/** What the wording needs to know of the session. */
export interface FailureWording {
  readonly languageId: string;
  /** The handshake completed: the next request starts a new server rather than trying again. */
  isInitialized(): boolean;
}

/** Lines of server stderr kept for "last error" (default 20). */
const STDERR_LINES_KEPT = 20;

/** The session's failure (the first one only) or close, told to whoever waits on it. */
export class FailureRecord {
  private failureValue: SessionFailure | undefined;
  private closedValue = false;
  private readonly stderrTail: string[] = [];
  /**
   * Told once when the session fails or closes: each request (and wait) adds its own listener and
   * removes it when done. (Racing every request against one long-lived promise instead left a
   * reaction on it per request, keeping every answer reachable: the runner's memory grew by
   * about 25 MB a minute under load.)
   */
  private readonly listeners = new Set<(error: RunnerError) => void>();

  constructor(private readonly wording: FailureWording) {}

  get failure(): SessionFailure | undefined {
    return this.failureValue;
  }

  get closed(): boolean {
    return this.closedValue;
  }

  /** Failed or closed: the session takes no more requests. */
  get ended(): boolean {
    return this.failureValue !== undefined || this.closedValue;
  }

  /** Keeps the last STDERR_LINES_KEPT lines the server wrote to stderr. */
  noteStderr(line: string): void {
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_LINES_KEPT) this.stderrTail.shift();
  }

  /** The failure with the last lines the server wrote to stderr; "" while healthy. */
  get lastError(): string {
    if (!this.failureValue) return "";
    const tail = this.stderrTail.slice(-3).join(" | ");
    return `${this.failureValue.reason}${tail ? `; stderr: ${tail}` : ""}`;
  }

  /** Records the first failure and ends what waits with it; false when already failed or closed. */
  record(failure: SessionFailure): boolean {
    if (this.ended) return false;
    this.failureValue = failure;
    this.tell(this.failureError());
    return true;
  }

  /** Marks the session closed and ends what waits. Idempotent; true the first time. */
  close(): boolean {
    const first = !this.closedValue;
    this.closedValue = true;
    this.tell(this.endError());
    return first;
  }

  /** Calls `listener` once when the session fails or closes; returns its removal. */
  onEnd(listener: (error: RunnerError) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when the session fails or closes, or after ms, whichever comes first. */
  endedWithin(ms: number): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.listeners.add(done);
    });
  }

  assertUsable(): void {
    if (this.failureValue) throw this.failureError();
    if (this.closedValue) throw this.stoppedError();
  }

  /** What requests fail with once the session ended: its failure, or that it was stopped. */
  endError(): RunnerError {
    return this.failureValue ? this.failureError() : this.stoppedError();
  }

  failureError(): RunnerError {
    const failure = this.failureValue ?? { code: "UNAVAILABLE", reason: "is not running" };
    const initialized = this.wording.isInitialized();
    // What a server said on stderr before failing to start is usually the reason.
    const detail = initialized ? failure.reason : this.lastError || failure.reason;
    return new RunnerError(
      failure.code,
      `the ${this.wording.languageId} language server ${detail}; the next request ${initialized ? "starts a new one" : "tries again"}`,
    );
  }

  stoppedError(): RunnerError {
    return new RunnerError(
      "UNAVAILABLE",
      `the ${this.wording.languageId} language server was stopped (idle, memory budget or shutdown); retry to start a new one`,
    );
  }

  private tell(error: RunnerError): void {
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const listener of listeners) listener(error);
  }
}

/** A server process that exited by itself, during the handshake or after it. */
export function exitFailure(initialized: boolean, exit: ProcessExit): SessionFailure {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  // Exiting during start is likely to repeat (installation, configuration): SERVER_FAILED.
  // Afterwards it is a crash the next request recovers from: UNAVAILABLE.
  return initialized
    ? { code: "UNAVAILABLE", reason: `exited unexpectedly (${how})` }
    : { code: "SERVER_FAILED", reason: `exited during start (${how})` };
}

/** A handshake that failed without the server saying how (no exit, no framing problem). */
export function startFailure(error: unknown, startTimeoutMs: number): SessionFailure {
  const reason =
    error instanceof RunnerError && error.code === "TIMEOUT"
      ? `did not answer initialize within ${startTimeoutMs} ms`
      : `did not start (${(error as Error).message ?? String(error)})`;
  return { code: "SERVER_FAILED", reason };
}

/** A server whose output broke the LSP framing, or sent one message over the size limit. */
export function framingFailure(problem: FramingProblem): SessionFailure {
  if (problem.kind === "oversized") {
    return {
      code: "SERVER_FAILED",
      reason: `sent a message of ${mib(problem.bytes)}, over the ${mib(problem.limit)} limit for one message, and was stopped (narrow the request, or raise maxMessageBytes)`,
    };
  }
  return { code: "SERVER_FAILED", reason: `broke the LSP framing (${problem.detail}) and was stopped` };
}

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(bytes < 1048576 ? 3 : 1)} MiB`;
}

const CONNECTION_ERROR_CODES = new Set<number>([
  ErrorCodes.MessageWriteError,
  ErrorCodes.MessageReadError,
  ErrorCodes.PendingResponseRejected,
  ErrorCodes.ConnectionInactive,
]);

/** An error of the connection itself (vscode-jsonrpc's reserved codes, or not a response at all), not an answer. */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof ResponseError)) return true;
  return CONNECTION_ERROR_CODES.has(error.code);
}
