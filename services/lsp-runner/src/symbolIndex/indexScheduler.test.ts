import { expect, test } from "vitest";
import { AgentActivity } from "./agentActivity.js";
import { IndexScheduler, type IndexTurns } from "./indexScheduler.js";

function workspace(name: string, files: number, log: string[]): IndexTurns & { done: Promise<void> } {
  let left = files;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    done,
    async step() {
      log.push(name);
      left--;
      if (left === 0) finish();
      return left > 0;
    },
  };
}

test("workspaces take turns, one file at a time, and no file starts while an agent's request runs", async () => {
  const activity = new AgentActivity();
  const scheduler = new IndexScheduler(activity, 60_000, (error) => {
    throw error;
  });
  const log: string[] = [];
  const end = activity.begin();
  const a = workspace("a", 3, log);
  const b = workspace("b", 2, log);
  scheduler.wake(a);
  scheduler.wake(b);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(log).toEqual([]); // an agent's request is in flight
  end();
  await Promise.all([a.done, b.done]);
  expect(log).toEqual(["a", "b", "a", "b", "a"]);
  await scheduler.close();
});
