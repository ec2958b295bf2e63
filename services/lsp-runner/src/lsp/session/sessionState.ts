/** Lifecycle of one language server as callers see it (`workspace_status`). */
import type { ServerStateName } from "@lspmesh/proto";

export type { ServerStateName } from "@lspmesh/proto";

export interface SessionFacts {
  /** The server failed (exited, stopped answering, broke the protocol) or is past its restart budget. */
  failed: boolean;
  /** The initialize handshake completed. */
  initialized: boolean;
  /** Work-done progress ($/progress) is open. */
  indexing: boolean;
  /** The server answered a request or published diagnostics since it started. */
  answered: boolean;
  /** A request timed out and the server has not answered one since (alive, but not keeping up). */
  suspect: boolean;
  /** The server shows a failure it keeps open as progress (gopls: "Error loading workspace"). */
  reportsFailure?: boolean;
}

/**
 * starting → indexing → ready, from the handshake, `$/progress` and the server's first answers: a
 * server that has not answered anything yet may still be loading its project, even without progress.
 * `degraded` once it lets requests time out or shows a failure of its own; `failed` wins over everything.
 */
export function sessionState(facts: SessionFacts): ServerStateName {
  if (facts.failed) return "failed";
  if (!facts.initialized) return "starting";
  if (facts.indexing || !facts.answered) return "indexing";
  if (facts.suspect || facts.reportsFailure) return "degraded";
  return "ready";
}

/** Key prefix of expected progress (tokens from servers are numbers or their own strings). */
const EXPECTED = "lspmesh/expected:";

/**
 * A work-done progress title that reports a failure, not work: gopls keeps "Error loading workspace"
 * open as progress until the cause is fixed (a workspace of several modules without a go.work),
 * which would otherwise count as indexing for ever.
 */
const FAILURE_TITLE = /^error\b/i;

/** Tracks `$/progress` work-done tokens: a server with open progress is still indexing. */
export class ProgressTracker {
  private readonly active = new Map<string, string>();
  /** Open progress reporting a failure (FAILURE_TITLE), by token: not work under way. */
  private readonly failures = new Map<string, string>();
  /** Titles of progress expected to begin (expect()). */
  private readonly expected = new Set<string>();
  /** Titles of progress that began at least once. */
  private readonly begun = new Set<string>();
  private readonly idleWaiters = new Set<() => void>();

  create(token: string | number): void {
    this.active.set(String(token), "");
  }

  /**
   * Counts as work under way until the server's own progress titled `title` begins (it then
   * counts until its end): for servers that report their indexing only once it starts.
   */
  expect(title: string, label: string): void {
    this.expected.add(title);
    this.active.set(`${EXPECTED}${title}`, label);
  }

  /** Stops expecting `title`; true when it was still expected (it never began). */
  cancelExpectation(title: string): boolean {
    if (!this.expected.delete(title)) return false;
    this.active.delete(`${EXPECTED}${title}`);
    this.wakeIfIdle();
    return true;
  }

  /** Whether progress titled `title` has begun at least once. */
  hasBegun(title: string): boolean {
    return this.begun.has(title);
  }

  update(token: string | number, value: { kind?: string; title?: string; message?: string; percentage?: number }) {
    const key = String(token);
    if ((value.kind === "begin" && FAILURE_TITLE.test(value.title ?? "")) || this.failures.has(key)) {
      this.recordFailure(key, value);
      return;
    }
    if (value.kind === "begin" && value.title !== undefined) {
      this.begun.add(value.title);
      if (this.expected.delete(value.title)) this.active.delete(`${EXPECTED}${value.title}`);
    }
    if (value.kind === "end") {
      this.active.delete(key);
      this.wakeIfIdle();
      return;
    }
    const previous = this.active.get(key) ?? "";
    const title = value.title ?? previous.split(":")[0] ?? "";
    const detail = [value.message, value.percentage !== undefined ? `${value.percentage}%` : undefined]
      .filter(Boolean)
      .join(" ");
    this.active.set(key, detail ? `${title}: ${detail}` : title);
  }

  get busy(): boolean {
    return this.active.size > 0;
  }

  /** The failures the server shows as open progress, or "" (see FAILURE_TITLE). */
  get failure(): string {
    return [...this.failures.values()].join("; ");
  }

  private recordFailure(key: string, value: { kind?: string; title?: string; message?: string }): void {
    // Created tokens count as work until their begin: this one is not.
    this.active.delete(key);
    if (value.kind === "end") this.failures.delete(key);
    else {
      const title = value.title ?? this.failures.get(key)?.split(":")[0] ?? "";
      this.failures.set(key, value.message ? `${title}: ${value.message}` : title);
    }
    this.wakeIfIdle();
  }

  /** Wakes waitIdle's callers once no work is open (there are none unless it was open when they called). */
  private wakeIfIdle(): void {
    if (!this.busy) for (const wake of this.idleWaiters) wake();
  }

  waitIdle(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (!this.busy) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (idle: boolean) => {
        clearTimeout(timer);
        this.idleWaiters.delete(wake);
        signal?.removeEventListener("abort", onAbort);
        resolve(idle);
      };
      const wake = () => finish(true);
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.idleWaiters.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** A one-line summary of the work in progress, or "". */
  summary(): string {
    return [...this.active.values()].filter(Boolean).join("; ");
  }
}
