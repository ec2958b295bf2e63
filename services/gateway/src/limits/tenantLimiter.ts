// Per-tenant limits on tool calls: how many may run at once, and how many may start per second
// (a token bucket whose burst equals one second's worth). Over a limit a call is refused at once
// with a retry-after, never queued: a queued agent would only time out later.

export interface TenantLimits {
  /** Calls of one tenant running at the same time (default 16). */
  concurrentCalls: number;
  /** Calls one tenant may start per second, sustained; bursts up to the same number (default 20). */
  callsPerSecond: number;
}

export const DEFAULT_LIMITS: TenantLimits = { concurrentCalls: 16, callsPerSecond: 20 };

export type Admission =
  | { ok: true; release: () => void }
  | { ok: false; reason: "concurrency" | "rate"; retryAfterMs: number; limits: TenantLimits };

interface TenantState {
  tokens: number;
  refilledAt: number;
  running: number;
}

/** Retry-after suggested when the concurrency limit refuses a call, in ms. */
const CONCURRENCY_RETRY_MS = 1000;

export class TenantLimiter {
  private readonly tenants = new Map<string, TenantState>();

  constructor(
    private readonly limitsOf: (tenant: string) => Partial<TenantLimits> = () => ({}),
    private readonly now: () => number = () => performance.now(),
    /** Most keys remembered (client addresses: unbounded otherwise); idle ones are forgotten first. */
    private readonly maxKeys = Number.POSITIVE_INFINITY,
  ) {}

  limits(tenant: string): TenantLimits {
    return { ...DEFAULT_LIMITS, ...this.limitsOf(tenant) };
  }

  /** Admits one call of `tenant`, or says when to retry. Call release() exactly once when it ends. */
  admit(tenant: string): Admission {
    const limits = this.limits(tenant);
    const now = this.now();
    const burst = Math.max(1, limits.callsPerSecond);
    let state = this.tenants.get(tenant);
    if (!state) {
      if (this.tenants.size >= this.maxKeys) this.forgetIdle(now);
      // Still full of busy keys: refuse rather than grow.
      if (this.tenants.size >= this.maxKeys) return { ok: false, reason: "rate", retryAfterMs: 1000, limits };
      state = { tokens: burst, refilledAt: now, running: 0 };
      this.tenants.set(tenant, state);
    }
    state.tokens = Math.min(burst, state.tokens + ((now - state.refilledAt) / 1000) * limits.callsPerSecond);
    state.refilledAt = now;
    if (state.running >= limits.concurrentCalls)
      return { ok: false, reason: "concurrency", retryAfterMs: CONCURRENCY_RETRY_MS, limits };
    if (state.tokens < 1) {
      const retryAfterMs = Math.ceil(((1 - state.tokens) / limits.callsPerSecond) * 1000);
      return { ok: false, reason: "rate", retryAfterMs, limits };
    }
    state.tokens -= 1;
    state.running += 1;
    let released = false;
    const held = state;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        held.running -= 1;
      },
    };
  }

  /** Drops keys with nothing running whose bucket has refilled (a full second's worth: idle ≥ 1 s). */
  private forgetIdle(now: number): void {
    for (const [key, state] of this.tenants) {
      if (state.running === 0 && now - state.refilledAt >= 1000) this.tenants.delete(key);
    }
  }
}
