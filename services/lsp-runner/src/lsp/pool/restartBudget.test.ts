import { describe, expect, test } from "vitest";
import { RestartBudget } from "./restartBudget.js";

const options = { maxRestarts: 5, windowMs: 300_000, initialBackoffMs: 1_000, maxBackoffMs: 4_000, coolDownMs: 60_000 };

describe("RestartBudget", () => {
  test("a fresh budget starts at once", () => {
    expect(new RestartBudget(options).gate(0)).toEqual({ kind: "go" });
  });

  test("the first restart is immediate, later ones back off exponentially up to the cap", () => {
    const budget = new RestartBudget(options);
    const waits: number[] = [];
    let now = 1_000;
    for (let i = 0; i < 5; i++) {
      expect(budget.recordFailure(now)).toBe(false);
      const gate = budget.gate(now);
      const wait = gate.kind === "wait" ? gate.ms : 0;
      waits.push(wait);
      now += wait;
      expect(budget.gate(now)).toEqual({ kind: "go" });
    }
    expect(waits).toEqual([0, 1_000, 2_000, 4_000, 4_000]);
  });

  test("one failure past the budget is `failed` until the cool-down ends, then one start is tried", () => {
    const budget = new RestartBudget(options);
    for (let i = 0; i < 5; i++) budget.recordFailure(10_000 + i);
    expect(budget.recordFailure(20_000)).toBe(true);
    expect(budget.gate(20_001)).toEqual({ kind: "failed", retryAt: 80_000 });
    expect(budget.isFailed(79_999)).toBe(true);
    expect(budget.gate(80_000)).toEqual({ kind: "go" });
    // The failures are still within the window: failing again is `failed` again at once.
    expect(budget.recordFailure(80_100)).toBe(true);
    expect(budget.gate(80_200)).toEqual({ kind: "failed", retryAt: 140_100 });
  });

  test("failures older than the window no longer count", () => {
    const budget = new RestartBudget(options);
    for (let i = 0; i < 5; i++) budget.recordFailure(i);
    expect(budget.recentFailures(300_003)).toBe(1);
    expect(budget.recentFailures(300_004)).toBe(0);
    expect(budget.recordFailure(400_000)).toBe(false);
    expect(budget.gate(400_000)).toEqual({ kind: "go" });
  });

  test("a success after the cool-down leaves `failed`; old failures still back off", () => {
    const budget = new RestartBudget(options);
    for (let i = 0; i < 6; i++) budget.recordFailure(i);
    budget.recovered();
    expect(budget.isFailed(10)).toBe(false);
    expect(budget.gate(10)).toEqual({ kind: "wait", ms: 4_000 - 5 });
  });
});
