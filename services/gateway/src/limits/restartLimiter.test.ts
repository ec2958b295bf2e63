import { expect, test } from "vitest";
import { RestartLimiter } from "./restartLimiter.js";

function clock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const server = (language: string, workspace = "web", tenant = "acme") => ({ tenant, workspace, language });

test("one server restarts at most once per 30 s; other servers and tenants are not held up", () => {
  const time = clock();
  const limiter = new RestartLimiter(undefined, time.now);
  expect(limiter.admit(server("typescript")).ok).toBe(true);
  time.advance(12_000);
  expect(limiter.admit(server("typescript"))).toMatchObject({ ok: false, reason: "server", retryAfterMs: 18_000 });
  expect(limiter.admit(server("python")).ok).toBe(true);
  expect(limiter.admit(server("typescript", "api")).ok).toBe(true);
  expect(limiter.admit(server("typescript", "web", "globex")).ok).toBe(true);
  time.advance(18_000);
  expect(limiter.admit(server("typescript")).ok).toBe(true);
});

test("a tenant restarts at most 10 servers a minute, counted over a sliding window", () => {
  const time = clock();
  const limiter = new RestartLimiter(undefined, time.now);
  for (let index = 0; index < 10; index++) {
    expect(limiter.admit(server(`language${index}`)).ok).toBe(true);
    time.advance(1000);
  }
  // The first restart (at 0) leaves the window at 60 s.
  expect(limiter.admit(server("another"))).toMatchObject({ ok: false, reason: "tenant", retryAfterMs: 50_000 });
  expect(limiter.admit(server("another", "web", "globex")).ok).toBe(true);
  time.advance(50_000);
  expect(limiter.admit(server("another")).ok).toBe(true);
  expect(limiter.admit(server("one more"))).toMatchObject({ ok: false, reason: "tenant", retryAfterMs: 1000 });
});

test("a refused restart is not counted", () => {
  const time = clock();
  const limiter = new RestartLimiter({ perServerIntervalMs: 30_000, perTenant: 2, windowMs: 60_000 }, time.now);
  expect(limiter.admit(server("typescript")).ok).toBe(true);
  for (let index = 0; index < 5; index++) expect(limiter.admit(server("typescript")).ok).toBe(false);
  expect(limiter.admit(server("python")).ok).toBe(true);
});

test("a cancelled restart (the call failed) is uncounted, once", () => {
  const time = clock();
  const limiter = new RestartLimiter({ perServerIntervalMs: 30_000, perTenant: 2, windowMs: 60_000 }, time.now);
  const failed = limiter.admit(server("typescript"));
  if (!failed.ok) throw new Error("expected the first restart to be admitted");
  failed.cancel();
  failed.cancel();
  expect(limiter.admit(server("typescript")).ok).toBe(true);
  expect(limiter.admit(server("python")).ok).toBe(true);
  expect(limiter.admit(server("go"))).toMatchObject({ ok: false, reason: "tenant" });
});
