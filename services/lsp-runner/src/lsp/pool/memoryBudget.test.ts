import { expect, test } from "vitest";
import { parseCgroupLimit } from "./memoryBudget.js";

test("cgroup limits: bytes are a limit, 'max' and the v1 no-limit value are none", () => {
  expect(parseCgroupLimit("2147483648\n")).toBe(2147483648);
  expect(parseCgroupLimit("max\n")).toBeUndefined();
  expect(parseCgroupLimit("9223372036854771712\n")).toBeUndefined();
});
