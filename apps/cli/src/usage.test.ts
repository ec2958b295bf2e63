import { expect, test } from "vitest";
import { parsePort, UsageError } from "./usage.js";

test("ports: default when absent, 0 allowed (pick a free one), garbage refused with the range", () => {
  expect(parsePort(undefined, 7420)).toBe(7420);
  expect(parsePort("0", 7420)).toBe(0);
  expect(parsePort("8080", 7420)).toBe(8080);
  for (const bad of ["-1", "65536", "http", "80.5", ""]) {
    expect(() => parsePort(bad, 7420)).toThrow(UsageError);
  }
  expect(() => parsePort("99999", 7420)).toThrow(/use 0–65535/);
});
