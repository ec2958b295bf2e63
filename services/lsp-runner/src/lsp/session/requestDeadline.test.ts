import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { requestTimeoutMs, withDeadline } from "./requestDeadline.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

test("without a deadline the language's timeout applies", () => {
  expect(requestTimeoutMs(undefined, 30_000, 5_000)).toBe(30_000);
  expect(requestTimeoutMs(new AbortController().signal, 30_000, 5_000)).toBe(30_000);
  expect(requestTimeoutMs(withDeadline(new AbortController().signal, Number.POSITIVE_INFINITY), 30_000, 5_000)).toBe(
    30_000,
  );
});

test("a 30 s deadline leaves room for the probe and the answer", () => {
  const signal = withDeadline(new AbortController().signal, 30_000);
  expect(requestTimeoutMs(signal, 30_000, 5_000)).toBe(24_000);
  // Time passes for the caller: later requests get what is left.
  vi.advanceTimersByTime(10_000);
  expect(requestTimeoutMs(signal, 30_000, 5_000)).toBe(14_000);
});

test("a short deadline keeps half of what is left, and a long one the language's own", () => {
  expect(requestTimeoutMs(withDeadline(new AbortController().signal, 4_000), 30_000, 5_000)).toBe(2_000);
  expect(requestTimeoutMs(withDeadline(new AbortController().signal, 120_000), 30_000, 5_000)).toBe(30_000);
  expect(requestTimeoutMs(withDeadline(new AbortController().signal, 0), 30_000, 5_000)).toBe(100);
});
