import { describe, expect, test } from "vitest";
import { appliedChanges as applied, tenantPut, workspacePut } from "./controlPlaneChanges.js";
import { expiredWorkspaces, expiryChanges } from "./workspaceExpiry.js";

const added = new Date("2026-11-27T10:00:00Z");
const at = (seconds: number) => added.getTime() + seconds * 1000;

function bucket() {
  let current = applied(new Map(), tenantPut(new Map(), "acme"));
  current = applied(current, workspacePut(current, "acme", "web"));
  current = applied(current, workspacePut(current, "acme", "task-1", undefined, { idleTtlSeconds: 60, now: added }));
  current = applied(
    current,
    workspacePut(current, "acme", "task-2", undefined, { idleTtlSeconds: 60, create: true, now: added }),
  );
  return current;
}

describe("idle TTLs", () => {
  test("a workspace unused for its TTL expires, counted from its last use or, unused, from when it was added", () => {
    const current = bucket();
    expect(expiredWorkspaces(current, new Map(), at(59))).toEqual([]);
    expect(expiredWorkspaces(current, new Map(), at(60)).map((w) => w.workspace)).toEqual(["task-1", "task-2"]);
    // task-1 used at +50 s: alive until +110 s.
    const used = new Map([["acme.task-1", at(50)]]);
    expect(expiredWorkspaces(current, used, at(100)).map((w) => w.workspace)).toEqual(["task-2"]);
    expect(expiredWorkspaces(current, used, at(110)).map((w) => [w.workspace, w.idleMs])).toEqual([
      ["task-1", 60_000],
      ["task-2", 110_000],
    ]);
  });

  test("expiry leaves tombstones, removing the folder only where lspmesh made it; workspaces without a TTL stay", () => {
    const current = bucket();
    const changes = expiryChanges(current, expiredWorkspaces(current, new Map(), at(3600)));
    expect(Object.fromEntries(changes.map((change) => [change.key, change.value]))).toEqual({
      "workspaces.acme.task-1": '{"state":"deleted","v":1}',
      "workspaces.acme.task-2": '{"removeFolder":true,"state":"deleted","v":1}',
    });
    expect(expiredWorkspaces(applied(current, changes), new Map(), at(7200))).toEqual([]);
  });

  test("a TTL must be a whole number of seconds above 0", () => {
    const current = applied(new Map(), tenantPut(new Map(), "acme"));
    expect(() => workspacePut(current, "acme", "t", undefined, { idleTtlSeconds: 0.5 })).toThrow(
      /whole number of seconds/,
    );
  });
});
