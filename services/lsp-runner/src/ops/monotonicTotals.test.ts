import { expect, test } from "vitest";
import { MonotonicTotals } from "./monotonicTotals.js";

const reading = (entries: Record<string, number>) => new Map(Object.entries(entries));

test("totals add the rises of the live sums and never fall when a session goes away", () => {
  const totals = new MonotonicTotals();
  expect(totals.update(reading({ typescript: 2 }))).toEqual(reading({ typescript: 2 }));
  // The session with 2 restarts stopped: the live sum falls to 0, the total stays.
  expect(totals.update(reading({}))).toEqual(reading({ typescript: 2 }));
  // A new session restarts 3 times.
  expect(totals.update(reading({ typescript: 3, python: 1 }))).toEqual(reading({ typescript: 5, python: 1 }));
  expect(totals.update(reading({ typescript: 1, python: 1 }))).toEqual(reading({ typescript: 5, python: 1 }));
  expect(totals.update(reading({ typescript: 2, python: 1 }))).toEqual(reading({ typescript: 6, python: 1 }));
});
