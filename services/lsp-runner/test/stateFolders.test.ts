// A runner killed outright leaves its workers' state folder behind; the next runner removes the
// folders of runners that are gone, and never one of a live process.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { createStateFolder, removeStaleStateFolders } from "../src/workers/stateFolders.js";

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

test("the state folders of gone runners are removed; a live process's and other folders stay", async () => {
  const parent = mkdtempSync(join(tmpdir(), "lspmesh-state-parent-"));
  cleanup.push(() => rmSync(parent, { recursive: true, force: true }));
  // A process that ran and exited: its pid is gone.
  const gone = spawn(process.execPath, ["-e", ""]);
  await once(gone, "exit");
  const stale = join(parent, `lspmesh-workers-${gone.pid}-abc123`);
  mkdirSync(join(stale, "acme", "home"), { recursive: true });
  writeFileSync(join(stale, "acme", "home", "cache"), "x");
  // A live one (this test's own child, kept running), this process's own, and a folder not ours.
  const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
  cleanup.push(() => live.kill("SIGKILL"));
  const alive = join(parent, `lspmesh-workers-${live.pid}-def456`);
  mkdirSync(alive);
  const own = createStateFolder(parent);
  const other = join(parent, "lspmesh-workers-notapid");
  mkdirSync(other);

  expect(removeStaleStateFolders(parent)).toEqual([stale]);
  expect(existsSync(stale)).toBe(false);
  for (const kept of [alive, own, other]) expect(existsSync(kept)).toBe(true);
});
