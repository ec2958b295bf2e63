import { describe, expect, test } from "vitest";
import { hrwWeight, type RouteKey, rankByHrw, rankForKey } from "./hrw.js";

const runners = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `runner-${i}` }));
const keys = (n: number): RouteKey[] =>
  Array.from({ length: n }, (_, i) => ({ tenant: `t${i % 7}`, workspace: `ws-${i}`, language: "typescript" }));

describe("rendezvous hashing", () => {
  test("the ranking depends only on the key and the ids, not on the input order", () => {
    const key = { tenant: "acme", workspace: "web", language: "typescript" };
    const a = rankByHrw(key, runners(5)).map((r) => r.id);
    const b = rankByHrw(key, runners(5).reverse()).map((r) => r.id);
    expect(a).toEqual(b);
    expect(new Set(a).size).toBe(5);
  });

  test("weights are fixed values (every gateway version agrees)", () => {
    expect(hrwWeight({ tenant: "acme", workspace: "web", language: "typescript" }, "runner-a")).toBe(
      hrwWeight({ tenant: "acme", workspace: "web", language: "typescript" }, "runner-a"),
    );
    expect(hrwWeight({ tenant: "acme", workspace: "web", language: "" }, "r")).not.toBe(
      hrwWeight({ tenant: "acme", workspace: "web", language: "python" }, "r"),
    );
  });

  test("tenant, workspace and language are separate fields (no ambiguous concatenation)", () => {
    const one = hrwWeight({ tenant: "a", workspace: "bc", language: "" }, "r");
    const two = hrwWeight({ tenant: "ab", workspace: "c", language: "" }, "r");
    expect(one).not.toBe(two);
  });

  test("keys spread evenly over runners", () => {
    const counts = new Map<string, number>();
    for (const key of keys(3000)) {
      const first = rankByHrw(key, runners(3))[0]!.id;
      counts.set(first, (counts.get(first) ?? 0) + 1);
    }
    for (const count of counts.values()) expect(count).toBeGreaterThan(800);
    expect(counts.size).toBe(3);
  });

  test("removing a runner moves only its own keys, to the next runner in their ranking", () => {
    const all = runners(4);
    const without = all.filter((r) => r.id !== "runner-2");
    for (const key of keys(500)) {
      const before = rankByHrw(key, all);
      const after = rankByHrw(key, without);
      if (before[0]!.id === "runner-2") expect(after[0]!.id).toBe(before[1]!.id);
      else expect(after[0]!.id).toBe(before[0]!.id);
    }
  });

  test("adding a runner moves about 1/N of the keys, all of them to the new runner", () => {
    const three = runners(3);
    const four = runners(4);
    let moved = 0;
    for (const key of keys(2000)) {
      const before = rankByHrw(key, three)[0]!.id;
      const after = rankByHrw(key, four)[0]!.id;
      if (before !== after) {
        moved++;
        expect(after).toBe("runner-3");
      }
    }
    expect(moved).toBeGreaterThan(350);
    expect(moved).toBeLessThan(650);
  });

  test("rankForKey ranks only runners admitting the tenant and serving the language, in HRW order", () => {
    const key = { tenant: "acme", workspace: "web", language: "typescript" };
    const all = [
      { id: "shared", languages: ["typescript"] },
      { id: "acme-only", languages: ["typescript"], tenants: ["acme"] },
      { id: "globex-only", languages: ["typescript"], tenants: ["globex"] },
      { id: "python", languages: ["python"] },
      { id: "static", languages: ["*"] },
    ];
    const ranked = rankForKey(key, all).map((runner) => runner.id);
    expect([...ranked].sort()).toEqual(["acme-only", "shared", "static"]);
    expect(ranked).toEqual(
      rankByHrw(
        key,
        all.filter((r) => ranked.includes(r.id)),
      ).map((r) => r.id),
    );
  });

  test("a remembered weight is the computed one, and one runner ranks alone without weighing", () => {
    const key = { tenant: "acme", workspace: "memo", language: "typescript" };
    const first = hrwWeight(key, "runner-m");
    // Thousands of other keys later (the memo forgets at its bound), the weight is the same.
    for (let i = 0; i < 5000; i++) hrwWeight({ ...key, workspace: `other-${i}` }, "runner-m");
    expect(hrwWeight(key, "runner-m")).toBe(first);
    const only = [{ id: "runner-only" }];
    const ranked = rankByHrw(key, only);
    expect(ranked).toEqual(only);
    expect(ranked).not.toBe(only);
    expect(rankByHrw(key, [])).toEqual([]);
  });
});
