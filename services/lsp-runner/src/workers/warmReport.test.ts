import { describe, expect, test } from "vitest";
import { mergeWarmSessions, parseWarmReport } from "./warmReport.js";

describe("workers' warm-session reports", () => {
  test("the supervisor keeps only valid sessions of the worker's own tenant", () => {
    const report = {
      sessions: [
        { id: "acme/web/typescript", lastUsed: 5 },
        { id: "globex/shop/typescript", lastUsed: 9 },
        { id: "acme/../typescript", lastUsed: 9 },
        { id: "acme/api/typescript" },
        "acme/lib/typescript",
      ],
    };
    expect(parseWarmReport(report, "acme")).toEqual([
      { id: "acme/web/typescript", lastUsed: 5 },
      { id: "acme/api/typescript", lastUsed: 0 },
    ]);
    expect(parseWarmReport(null, "acme")).toEqual([]);
    expect(parseWarmReport({ sessions: "x" }, "acme")).toEqual([]);
  });

  test("workers' lists merge most recently used first, bounded", () => {
    const acme = [
      { id: "acme/web/typescript", lastUsed: 3 },
      { id: "acme/api/typescript", lastUsed: 1 },
    ];
    const globex = [{ id: "globex/shop/typescript", lastUsed: 2 }];
    expect(mergeWarmSessions([acme, globex])).toEqual([
      "acme/web/typescript",
      "globex/shop/typescript",
      "acme/api/typescript",
    ]);
    expect(mergeWarmSessions([acme, globex], 1)).toEqual(["acme/web/typescript"]);
  });
});
