// Limits on restart_language_server: a restart stops a server other calls of the tenant are using,
// so one (tenant, workspace, language) server restarts at most once per interval, and one tenant
// restarts at most so many servers per minute. Over a limit the restart is refused with the wait,
// never queued. No timers: old entries are dropped as restarts are admitted.

export interface RestartLimits {
  /** Least time between two restarts of one (tenant, workspace, language) server, in ms (default 30 000). */
  perServerIntervalMs: number;
  /** Restarts one tenant may make within windowMs (default 10). */
  perTenant: number;
  /** The window of perTenant, in ms (default 60 000). */
  windowMs: number;
}

export const DEFAULT_RESTART_LIMITS: RestartLimits = { perServerIntervalMs: 30_000, perTenant: 10, windowMs: 60_000 };

export type RestartAdmission =
  /** Admitted and counted; `cancel()` uncounts it when the restart did not happen (the call failed). Idempotent. */
  | { ok: true; cancel: () => void }
  | { ok: false; reason: "server" | "tenant"; retryAfterMs: number; limits: RestartLimits };

export interface RestartTarget {
  tenant: string;
  workspace: string;
  language: string;
}

export class RestartLimiter {
  /** When each server was last restarted, by JSON [tenant, workspace, language]. */
  private readonly lastRestart = new Map<string, number>();
  /** Each tenant's restarts within the window, oldest first. */
  private readonly recent = new Map<string, number[]>();

  constructor(
    readonly limits: RestartLimits = DEFAULT_RESTART_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Admits one restart and counts it, or says when to retry. */
  admit(target: RestartTarget): RestartAdmission {
    const now = this.now();
    this.forgetOld(now);
    const key = JSON.stringify([target.tenant, target.workspace, target.language]);
    const last = this.lastRestart.get(key);
    if (last !== undefined)
      return {
        ok: false,
        reason: "server",
        retryAfterMs: last + this.limits.perServerIntervalMs - now,
        limits: this.limits,
      };
    const tenantRestarts = this.recent.get(target.tenant) ?? [];
    if (tenantRestarts.length >= this.limits.perTenant) {
      const oldest = tenantRestarts[tenantRestarts.length - this.limits.perTenant]!;
      return { ok: false, reason: "tenant", retryAfterMs: oldest + this.limits.windowMs - now, limits: this.limits };
    }
    this.lastRestart.set(key, now);
    this.recent.set(target.tenant, [...tenantRestarts, now]);
    let cancelled = false;
    return {
      ok: true,
      cancel: () => {
        if (cancelled) return;
        cancelled = true;
        if (this.lastRestart.get(key) === now) this.lastRestart.delete(key);
        const times = this.recent.get(target.tenant) ?? [];
        const index = times.lastIndexOf(now);
        if (index >= 0) this.recent.set(target.tenant, times.toSpliced(index, 1));
      },
    };
  }

  /** Drops restarts past both limits' reach: the maps hold only what can still refuse a restart. */
  private forgetOld(now: number): void {
    for (const [key, at] of this.lastRestart) {
      if (now - at >= this.limits.perServerIntervalMs) this.lastRestart.delete(key);
    }
    for (const [tenant, times] of this.recent) {
      const kept = times.filter((at) => now - at < this.limits.windowMs);
      if (kept.length === 0) this.recent.delete(tenant);
      else if (kept.length < times.length) this.recent.set(tenant, kept);
    }
  }
}
