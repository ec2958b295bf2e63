import { describe, expect, test } from "vitest";
import { ProgressTracker, sessionState } from "./sessionState.js";

const healthy = { failed: false, initialized: true, indexing: false, answered: true, suspect: false };

describe("sessionState", () => {
  test.each([
    ["ready", healthy],
    ["starting", { ...healthy, initialized: false, answered: false }],
    ["indexing", { ...healthy, indexing: true }],
    ["indexing", { ...healthy, answered: false }],
    ["degraded", { ...healthy, suspect: true }],
    ["indexing", { ...healthy, suspect: true, indexing: true }],
    ["failed", { ...healthy, failed: true, indexing: true, suspect: true }],
  ] as const)("%s", (state, facts) => {
    expect(sessionState(facts)).toBe(state);
  });
});

describe("ProgressTracker", () => {
  test("a created token is busy until its end, and the summary names the work", async () => {
    const progress = new ProgressTracker();
    progress.create(1);
    expect(progress.busy).toBe(true);
    progress.update(1, { kind: "begin", title: "Indexing" });
    progress.update(1, { kind: "report", message: "3/10", percentage: 30 });
    expect(progress.summary()).toBe("Indexing: 3/10 30%");
    const idle = progress.waitIdle(10_000);
    progress.update(1, { kind: "end" });
    expect(await idle).toBe(true);
    expect(progress.busy).toBe(false);
  });

  test("expected progress is work under way until the server's own progress of that title begins, then until it ends", async () => {
    const progress = new ProgressTracker();
    progress.expect("indexing", "the index has not started yet");
    expect(progress.busy).toBe(true);
    expect(progress.summary()).toBe("the index has not started yet");
    // Other progress neither ends nor replaces the expectation.
    progress.create("other");
    progress.update("other", { kind: "begin", title: "loading" });
    progress.update("other", { kind: "end" });
    expect(progress.summary()).toBe("the index has not started yet");
    progress.create("backgroundIndexProgress");
    progress.update("backgroundIndexProgress", { kind: "begin", title: "indexing" });
    expect(progress.summary()).toBe("indexing");
    const idle = progress.waitIdle(10_000);
    progress.update("backgroundIndexProgress", { kind: "end" });
    expect(await idle).toBe(true);
    // Expected once: the next indexing round is the server's own progress only.
    progress.update("backgroundIndexProgress", { kind: "begin", title: "indexing" });
    progress.update("backgroundIndexProgress", { kind: "end" });
    expect(progress.busy).toBe(false);
  });

  test("an expectation cancelled before its progress began wakes the waiters; a late begin is still seen", async () => {
    const progress = new ProgressTracker();
    progress.expect("indexing", "the index has not started yet");
    const idle = progress.waitIdle(10_000);
    expect(progress.cancelExpectation("indexing")).toBe(true);
    expect(await idle).toBe(true);
    expect(progress.cancelExpectation("indexing")).toBe(false);
    expect(progress.hasBegun("indexing")).toBe(false);
    progress.update("late", { kind: "begin", title: "indexing" });
    expect(progress.hasBegun("indexing")).toBe(true);
    expect(progress.busy).toBe(true);
  });

  test("progress reporting an error (gopls's 'Error loading workspace') is a failure shown, not work under way", async () => {
    const progress = new ProgressTracker();
    progress.create("critical");
    const idle = progress.waitIdle(10_000);
    progress.update("critical", {
      kind: "begin",
      title: "Error loading workspace",
      message: "gopls was not able to find modules in your workspace",
    });
    expect(await idle).toBe(true);
    expect(progress.busy).toBe(false);
    expect(progress.failure).toBe("Error loading workspace: gopls was not able to find modules in your workspace");
    progress.update("critical", { kind: "report", message: "still no go.work" });
    expect(progress.failure).toBe("Error loading workspace: still no go.work");
    progress.update("critical", { kind: "end" });
    expect(progress.failure).toBe("");
    expect(progress.busy).toBe(false);
  });
});

test("a server showing a failure of its own is degraded, not ready", () => {
  expect(sessionState({ ...healthy, reportsFailure: true })).toBe("degraded");
  expect(sessionState({ ...healthy, reportsFailure: true, failed: true })).toBe("failed");
});
