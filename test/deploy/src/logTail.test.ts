import { describe, expect, it } from "vitest";
import { lastLines, withoutRepeats } from "./logTail.js";

describe("withoutRepeats", () => {
  it("keeps the first of a run of one message (timestamps aside) and counts the rest", () => {
    const log = [
      "[1] 2026/11/29 00:43:37.768740 [INF] Starting JetStream cluster",
      '[1] 2026/11/29 00:43:38.142532 [WRN] Healthcheck failed: "no meta leader"',
      '[1] 2026/11/29 00:43:38.404185 [WRN] Healthcheck failed: "no meta leader"',
      '[1] 2026/11/29 00:43:38.657046 [WRN] Healthcheck failed: "no meta leader"',
      "[1] 2026/11/29 00:43:43.307273 [INF] Self is new JetStream cluster metadata leader",
    ].join("\n");
    expect(withoutRepeats(log).split("\n")).toEqual([
      "[1] 2026/11/29 00:43:37.768740 [INF] Starting JetStream cluster",
      '[1] 2026/11/29 00:43:38.142532 [WRN] Healthcheck failed: "no meta leader"',
      "  … repeated 2 more times",
      "[1] 2026/11/29 00:43:43.307273 [INF] Self is new JetStream cluster metadata leader",
    ]);
  });

  it("leaves different lines and blank lines alone", () => {
    expect(withoutRepeats("a\n\n\nb\na")).toBe("a\n\n\nb\na");
  });
});

describe("lastLines", () => {
  it("keeps the last lines, and a final newline does not count as one", () => {
    expect(lastLines("1\n2\n3\n", 2)).toBe("2\n3\n");
    expect(lastLines("1\n2\n3", 2)).toBe("2\n3");
  });
});
