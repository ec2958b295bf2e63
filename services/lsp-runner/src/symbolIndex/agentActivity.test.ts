import { expect, test } from "vitest";
import { AgentActivity } from "./agentActivity.js";

test("quiet waits for the last request to end; ending twice counts once", async () => {
  const activity = new AgentActivity();
  const first = activity.begin();
  const second = activity.begin();
  let quiet = false;
  const waiting = activity.quiet(60_000).then(() => {
    quiet = true;
  });
  first();
  first();
  await Promise.resolve();
  expect(quiet).toBe(false);
  expect(activity.busy).toBe(true);
  second();
  await waiting;
  expect(quiet).toBe(true);
  expect(activity.busy).toBe(false);
});

test("a request that never ends delays indexing by at most maxWaitMs", async () => {
  const activity = new AgentActivity();
  activity.begin();
  await activity.quiet(5);
  expect(activity.busy).toBe(true);
});
