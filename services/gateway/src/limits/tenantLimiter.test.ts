import { describe, expect, test } from "vitest";
import { TenantLimiter } from "./tenantLimiter.js";

function clock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("per-tenant limits", () => {
  test("a burst of callsPerSecond is admitted, the next is refused with the wait until a token is back", () => {
    const time = clock();
    const limiter = new TenantLimiter(() => ({ callsPerSecond: 4, concurrentCalls: 100 }), time.now);
    for (let i = 0; i < 4; i++) {
      const admission = limiter.admit("acme");
      expect(admission.ok).toBe(true);
      if (admission.ok) admission.release();
    }
    expect(limiter.admit("acme")).toMatchObject({ ok: false, reason: "rate", retryAfterMs: 250 });
    time.advance(250);
    expect(limiter.admit("acme").ok).toBe(true);
  });

  test("one tenant's limit does not touch another tenant", () => {
    const time = clock();
    const limiter = new TenantLimiter(
      (tenant) => (tenant === "noisy" ? { callsPerSecond: 1 } : { callsPerSecond: 100 }),
      time.now,
    );
    expect(limiter.admit("noisy").ok).toBe(true);
    expect(limiter.admit("noisy").ok).toBe(false);
    for (let i = 0; i < 50; i++) {
      const admission = limiter.admit("quiet");
      expect(admission.ok).toBe(true);
      if (admission.ok) admission.release();
    }
  });

  test("concurrency: calls beyond the limit are refused until one releases; release is idempotent", () => {
    const limiter = new TenantLimiter(() => ({ concurrentCalls: 2, callsPerSecond: 1000 }), clock().now);
    const first = limiter.admit("acme");
    const second = limiter.admit("acme");
    expect(first.ok && second.ok).toBe(true);
    expect(limiter.admit("acme")).toMatchObject({ ok: false, reason: "concurrency" });
    if (first.ok) {
      first.release();
      first.release();
    }
    expect(limiter.admit("acme").ok).toBe(true);
    expect(limiter.admit("acme").ok).toBe(false);
  });

  test("tokens refill at the sustained rate and never beyond the burst", () => {
    const time = clock();
    const limiter = new TenantLimiter(() => ({ callsPerSecond: 2, concurrentCalls: 100 }), time.now);
    time.advance(60_000);
    const admitted = Array.from({ length: 5 }, () => limiter.admit("acme")).filter((a) => a.ok).length;
    expect(admitted).toBe(2);
  });

  test("defaults apply when a tenant sets nothing", () => {
    expect(new TenantLimiter().limits("x")).toEqual({ concurrentCalls: 16, callsPerSecond: 20 });
  });
});
