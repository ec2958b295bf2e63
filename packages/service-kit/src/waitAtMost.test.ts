import { expect, test } from "vitest";
import { waitAtMost } from "./waitAtMost.js";

test("the work's value when it settles in time, its rejection passed on", async () => {
  await expect(waitAtMost(Promise.resolve(7), 1_000)).resolves.toBe(7);
  await expect(waitAtMost(Promise.reject(new Error("refused")), 1_000)).rejects.toThrow("refused");
});

test("undefined once the time is up, without waiting for the work", async () => {
  const started = Date.now();
  await expect(waitAtMost(new Promise(() => {}), 30)).resolves.toBeUndefined();
  expect(Date.now() - started).toBeLessThan(1_000);
});

test("undefined as soon as the signal aborts, or at once when it already has", async () => {
  const controller = new AbortController();
  const waiting = waitAtMost(new Promise(() => {}), 60_000, controller.signal);
  controller.abort();
  await expect(waiting).resolves.toBeUndefined();
  await expect(waitAtMost(new Promise(() => {}), 60_000, controller.signal)).resolves.toBeUndefined();
  await expect(waitAtMost(undefined, 60_000)).resolves.toBeUndefined();
});
