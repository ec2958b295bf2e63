import { expect, test } from "vitest";
import { LatestPerKeyQueue } from "./latestPerKeyQueue.js";

test("the latest value per key wins and keys come out oldest first", () => {
  const queue = new LatestPerKeyQueue<number>(10);
  queue.put("a", 1);
  queue.put("b", 1);
  queue.put("a", 2);
  expect(queue.size).toBe(2);
  expect(queue.shift()).toEqual(["b", 1]);
  expect(queue.shift()).toEqual(["a", 2]);
  expect(queue.shift()).toBeUndefined();
});

test("when full, the key waiting longest is dropped and counted", () => {
  const queue = new LatestPerKeyQueue<string>(2);
  queue.put("a", "a1");
  queue.put("b", "b1");
  queue.put("c", "c1");
  expect(queue.dropped).toBe(1);
  expect([queue.shift(), queue.shift()]).toEqual([
    ["b", "b1"],
    ["c", "c1"],
  ]);
});

test("a failed delivery goes back only when nothing newer was queued for its key", () => {
  const queue = new LatestPerKeyQueue<number>(10);
  queue.put("a", 1);
  const taken = queue.shift()!;
  queue.put("a", 2);
  queue.restore(...taken);
  expect(queue.shift()).toEqual(["a", 2]);
  queue.restore("a", 1);
  expect(queue.shift()).toEqual(["a", 1]);
});
