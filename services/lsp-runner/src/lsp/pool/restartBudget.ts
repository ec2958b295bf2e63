// When a language server that failed (crashed, stopped answering, broke the protocol) may be
// started again: exponential backoff between restarts, a budget of restarts per time window, and
// past the budget a cool-down during which the session is `failed`. Pure: the caller passes the clock.

export interface RestartBudgetOptions {
  /** Restarts allowed within windowMs; one more failure makes the session `failed` (default 5). */
  maxRestarts: number;
  /** Sliding window the restarts are counted in, ms (default 300 000 = 5 min). */
  windowMs: number;
  /** Wait before the second restart in the window, ms; doubled for each further one (default 1 000). */
  initialBackoffMs: number;
  /** Longest wait between restarts, ms (default 30 000). */
  maxBackoffMs: number;
  /** How long a `failed` session refuses requests before one more start is tried, ms (default 60 000). */
  coolDownMs: number;
}

export const DEFAULT_RESTART_BUDGET: RestartBudgetOptions = {
  maxRestarts: 5,
  windowMs: 300_000,
  initialBackoffMs: 1_000,
  maxBackoffMs: 30_000,
  coolDownMs: 60_000,
};

export type RestartGate =
  /** Start now. */
  | { kind: "go" }
  /** Start after waiting `ms` (backoff). */
  | { kind: "wait"; ms: number }
  /** Past the budget: refuse until `retryAt` (ms since epoch). */
  | { kind: "failed"; retryAt: number };

export class RestartBudget {
  private failures: number[] = [];
  private failedUntil = 0;

  constructor(private readonly options: RestartBudgetOptions = DEFAULT_RESTART_BUDGET) {}

  /** Records a failure at `now`; true when it exhausted the budget (the session is now `failed`). */
  recordFailure(now: number): boolean {
    this.prune(now);
    this.failures.push(now);
    if (this.failures.length > this.options.maxRestarts) {
      this.failedUntil = now + this.options.coolDownMs;
      return true;
    }
    this.failedUntil = 0;
    return false;
  }

  /**
   * Whether a start may happen at `now`. The first restart after a failure is immediate; the n-th
   * within the window waits initialBackoffMs·2^(n-2), capped at maxBackoffMs. After a cool-down one
   * start is tried; the old failures are still in the window, so failing again means `failed` again.
   */
  gate(now: number): RestartGate {
    if (now < this.failedUntil) return { kind: "failed", retryAt: this.failedUntil };
    if (this.failedUntil > 0) return { kind: "go" };
    this.prune(now);
    const count = this.failures.length;
    if (count === 0) return { kind: "go" };
    const backoff =
      count === 1 ? 0 : Math.min(this.options.maxBackoffMs, this.options.initialBackoffMs * 2 ** (count - 2));
    const wait = this.failures[count - 1]! + backoff - now;
    return wait > 0 ? { kind: "wait", ms: wait } : { kind: "go" };
  }

  /** Failures within the window at `now`. */
  recentFailures(now: number): number {
    this.prune(now);
    return this.failures.length;
  }

  isFailed(now: number): boolean {
    return now < this.failedUntil;
  }

  /** A start succeeded after a cool-down: leave the `failed` state (old failures still count). */
  recovered(): void {
    this.failedUntil = 0;
  }

  private prune(now: number): void {
    const since = now - this.options.windowMs;
    while (this.failures.length > 0 && this.failures[0]! <= since) this.failures.shift();
  }
}
