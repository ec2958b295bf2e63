/** Lifecycle of one language server as callers see it (DESIGN.md 3.3 `workspace_status`). */
export type ServerStateName = "starting" | "indexing" | "ready" | "degraded" | "failed";

/** Tracks `$/progress` work-done tokens: a server with open progress is still indexing. */
export class ProgressTracker {
  private readonly active = new Map<string, string>();
  private readonly idleWaiters = new Set<() => void>();

  create(token: string | number): void {
    this.active.set(String(token), "");
  }

  update(token: string | number, value: { kind?: string; title?: string; message?: string; percentage?: number }) {
    const key = String(token);
    if (value.kind === "end") {
      this.active.delete(key);
      if (!this.busy) for (const wake of this.idleWaiters) wake();
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
