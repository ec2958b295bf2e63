import { describe, expect, test } from "vitest";
import { parseProcStat } from "./processGroups.js";

describe("parseProcStat", () => {
  test("reads pid, process group and resident pages", () => {
    const line =
      "28322 (node) S 28311 28311 28311 0 -1 4194304 51188 0 0 0 120 30 0 0 20 0 11 0 123456 1234567890 40123 18446744073709551615 1 1 0 0 0 0 0 16781312 17922 0 0 0 17 1 0 0 0 0 0";
    expect(parseProcStat(line)).toEqual({ pid: 28322, name: "node", state: "S", pgid: 28311, rssPages: 40123 });
  });

  test("a command name with spaces and parentheses does not shift the fields", () => {
    const line = "77 (a) b (c)) R 1 70 70 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 100 9 0";
    expect(parseProcStat(line)).toEqual({ pid: 77, name: "a) b (c)", state: "R", pgid: 70, rssPages: 9 });
  });

  test("garbage is undefined", () => {
    expect(parseProcStat("nonsense")).toBeUndefined();
  });
});
