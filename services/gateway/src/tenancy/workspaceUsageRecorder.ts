// Records when each workspace was last used (KV `lspmesh-usage`, @lspmesh/events controlPlane.ts),
// for idle TTLs: a tool call that resolved a workspace touches it; at most one put per workspace
// every USAGE_RECORD_EVERY_MS (30 s) from this gateway, fire and forget, so a call never waits on it.
// A failed put is logged once per outage and the next touch tries again.
import { USAGE_RECORD_EVERY_MS, usageKey, type WorkspaceUsage } from "@lspmesh/events";

export interface UsageStore {
  put(key: string, value: string): Promise<unknown>;
}

export interface WorkspaceUsageRecorderOptions {
  everyMs?: number;
  now?: () => number;
  onProblem?: (message: string, error: unknown) => void;
}

/** Past this many workspaces remembered, the oldest records are forgotten (a later touch writes again). */
const MAX_REMEMBERED = 100_000;

export class WorkspaceUsageRecorder {
  /** Workspace key → when this gateway last wrote its use, ms. */
  private readonly written = new Map<string, number>();
  private readonly pending = new Set<Promise<unknown>>();
  private failing = false;
  private closed = false;

  constructor(
    private readonly store: UsageStore,
    private readonly options: WorkspaceUsageRecorderOptions = {},
  ) {}

  touch(tenant: string, workspace: string): void {
    if (this.closed) return;
    const now = this.options.now?.() ?? Date.now();
    const key = usageKey(tenant, workspace);
    const last = this.written.get(key);
    if (last !== undefined && now - last < (this.options.everyMs ?? USAGE_RECORD_EVERY_MS)) return;
    this.written.delete(key);
    this.written.set(key, now);
    if (this.written.size > MAX_REMEMBERED) this.written.delete(this.written.keys().next().value as string);
    const usage: WorkspaceUsage = { v: 1, at: now };
    const put = this.store.put(key, JSON.stringify(usage)).then(
      () => {
        this.failing = false;
      },
      (error: unknown) => {
        this.written.delete(key);
        if (!this.failing)
          this.options.onProblem?.("workspace use not recorded (idle TTLs count from the last one recorded)", error);
        this.failing = true;
      },
    );
    this.pending.add(put);
    void put.finally(() => this.pending.delete(put));
  }

  /** Stops recording; waits for the puts under way. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.pending);
  }
}
