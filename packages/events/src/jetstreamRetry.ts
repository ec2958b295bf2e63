// Riding through a NATS node's loss: while a stream or the JetStream meta group elects a new
// leader (a few seconds in a 3-node cluster), requests time out, find no responders (503) or are
// told "JetStream system temporarily unavailable". Those are retried with jittered back-off within a
// time budget; anything else (a permission refused, a message too large, a closed connection) is
// not, and fails at once.

export interface RetryPolicy {
  /** First pause, ms (default 100); doubles each attempt. */
  firstDelayMs?: number;
  /** Longest pause, ms (default 2 000). */
  maxDelayMs?: number;
  /** Time from the first attempt after which no retry starts, ms (default 15 000). */
  budgetMs?: number;
}

export interface RetryOptions extends RetryPolicy {
  /** Told before each pause (e.g. to log the first one). */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  /** Test seams: the clock, the pause and the jitter's random source (0 ≤ r < 1). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

const DEFAULTS = { firstDelayMs: 100, maxDelayMs: 2_000, budgetMs: 15_000 } as const;

/** JetStream API error codes of a cluster between leaders (10008: "JetStream system temporarily unavailable"). */
const TRANSIENT_API_CODES = new Set([10008]);

const TRANSIENT_MESSAGE =
  /\btimeout\b|timed out|no responders|temporarily unavailable|jetstream is not enabled|stream is offline|no leader|leader(ship)? (change|lost)/i;

/** True when the error, or one it was caused by, is one a cluster gives between leaders. */
export function isTransientJetStreamError(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 5; depth++) {
    if (!(cause instanceof Error)) return TRANSIENT_MESSAGE.test(String(cause));
    const { name, message } = cause;
    if (/Closed|Draining|PermissionViolation|Authorization|Authentication/.test(name)) return false;
    if (name === "TimeoutError" || name === "NoResponders") return true;
    const api = cause as Error & { code?: unknown; status?: unknown };
    if (name === "JetStreamApiError" || name === "JetStreamError") {
      if (typeof api.code === "number" && TRANSIENT_API_CODES.has(api.code)) return true;
      if (api.status === 503) return true;
    }
    if (TRANSIENT_MESSAGE.test(message)) return true;
    cause = (cause as Error & { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The pause before retry number `attempt` (0 for the first), ms: exponential from firstDelayMs,
 * capped at maxDelayMs, with jitter in [½, 1] of it so that clients losing the same node do not
 * retry in step.
 */
export function backoffDelayMs(attempt: number, policy: RetryPolicy = {}, random: () => number = Math.random): number {
  const first = policy.firstDelayMs ?? DEFAULTS.firstDelayMs;
  const max = policy.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const full = Math.min(max, first * 2 ** Math.min(attempt, 30));
  return Math.round(full / 2 + (full / 2) * random());
}

/**
 * Runs operation, retrying transient JetStream errors (isTransientJetStreamError) with back-off
 * until it succeeds or the next attempt would start past budgetMs; then the last error is thrown.
 */
export async function retryTransient<T>(operation: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + (options.budgetMs ?? DEFAULTS.budgetMs);
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!isTransientJetStreamError(error)) throw error;
      const delay = backoffDelayMs(attempt, options, options.random);
      if (now() + delay > deadline) throw error;
      options.onRetry?.(error, attempt, delay);
      await sleep(delay);
    }
  }
}
