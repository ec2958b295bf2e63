import { expect, test } from "vitest";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { DiagnosticsStore } from "./diagnosticsStore.js";

const error = (message: string): Diagnostic => ({
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
  message,
});

test("records carry version, hash and the epoch; every change advances the epoch strictly", () => {
  const store = new DiagnosticsStore();
  const started = store.epoch;
  const first = store.record("file:///a.ts", [error("x")], 1, "h1");
  expect(first).toMatchObject({ version: 1, contentSha256: "h1", epoch: started });
  const change = store.noteChange();
  const second = store.noteChange();
  expect(second).toBeGreaterThan(change);
  expect(store.changedAt).toBe(second);
  expect(store.epoch).toBeGreaterThanOrEqual(started + 2);
  const after = store.record("file:///a.ts", [], 2, "h2", { resultId: "result-2", pulled: true });
  expect(after.sequence).toBeGreaterThan(store.changedAt);
  expect(after).toMatchObject({ epoch: store.epoch, resultId: "result-2", pulled: true });
  // A push after a pull is the latest record; the pull stays known as the last complete one.
  const pushed = store.record("file:///a.ts", [error("syntax only")], 2, "h2");
  expect(store.get("file:///a.ts")).toBe(pushed);
  expect(store.pulledOf("file:///a.ts")).toBe(after);
});

test("listeners hear every record; one failing listener does not stop the others", () => {
  const store = new DiagnosticsStore();
  const heard: string[] = [];
  store.onRecord(() => {
    throw new Error("broken listener");
  });
  const unsubscribe = store.onRecord((uri, stored) => heard.push(`${uri}@${stored.version}`));
  store.record("file:///a.ts", [], 1, "h");
  unsubscribe();
  store.record("file:///a.ts", [], 2, "h");
  expect(heard).toEqual(["file:///a.ts@1"]);
});

test("waiting for diagnostics newer than a mark returns the record made after it, not an older one", async () => {
  const store = new DiagnosticsStore();
  store.record("file:///a.ts", [error("old")], 1, "h1");
  const mark = store.noteChange();
  const waiting = store.waitForNewer("file:///a.ts", mark, 10_000, 0);
  store.record("file:///a.ts", [], 2, "h2");
  await expect(waiting).resolves.toMatchObject({ version: 2, diagnostics: [] });
  const aborted = new AbortController();
  aborted.abort();
  await expect(store.waitForNewer("file:///a.ts", store.noteChange(), 10_000, 0, aborted.signal)).resolves.toBe(
    undefined,
  );
});

test("records made while an overlay is laid are told to no listener and taken back when it is lifted", () => {
  const store = new DiagnosticsStore();
  const heard: string[] = [];
  store.onRecord((uri, stored) => heard.push(`${uri}@${stored.version}`));
  const disk = store.record("file:///a.ts", [], 1, "h1", { pulled: true });
  store.beginOverlay();
  expect(store.overlaid).toBe(true);
  const laid = store.record("file:///a.ts", [error("only in the overlay")], 2, "h2", { pulled: true });
  store.record("file:///importer.ts", [error("only in the overlay")], 1, "i1");
  // The check reads what it laid as usual.
  expect(store.get("file:///a.ts")).toBe(laid);
  expect(store.pulledOf("file:///a.ts")).toBe(laid);
  store.endOverlay();
  expect(store.overlaid).toBe(false);
  expect(store.get("file:///a.ts")).toBe(disk);
  expect(store.pulledOf("file:///a.ts")).toBe(disk);
  expect(store.get("file:///importer.ts")).toBeUndefined();
  expect(heard).toEqual(["file:///a.ts@1"]);
});
