// The workspace watcher on a real folder tree: one watch per folder, skipped folders ignored,
// new folders followed, changes classified, and flush() delivering what is pending.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isFaultsTier, startFolderSwapper, waitFor } from "@lspmesh/test-kit";
import { afterEach, beforeEach, expect, test } from "vitest";
import { DirectoryWatcher, type WatchedChange } from "../src/workspace/directoryWatcher.js";

let root: string;
let watcher: DirectoryWatcher | undefined;
let seen: WatchedChange[];

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-watch-"));
  for (const dir of ["src/deep", "node_modules/pkg", ".git/objects", "dist"])
    mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, "src/a.ts"), "a\n");
  seen = [];
  // A long debounce: only flush() delivers within the test, so nothing depends on timing. A storm
  // from 2 000 events a second: the folder swapper makes hundreds of thousands on an idle machine,
  // but a few thousand when the tests around it load both cores (it missed 20 000 within 10 s once).
  watcher = await DirectoryWatcher.start({
    root,
    debounceMs: 60_000,
    maxDelayMs: 60_000,
    stormEventsPerSecond: 2_000,
    onChanges: (c) => void seen.push(...c),
  });
});

afterEach(() => {
  watcher?.close();
  rmSync(root, { recursive: true, force: true });
});

const relative = (changes: WatchedChange[]) =>
  changes.map((c) => `${c.kind} ${c.absolute.slice(root.length + 1)}`).sort();

test("folders are watched one by one, without dependency, VCS and build folders", () => {
  expect(watcher!.watchedDirectories).toBe(3); // root, src, src/deep
});

test("created, changed and deleted files are reported once flushed, skipped folders never", async () => {
  writeFileSync(join(root, "src/deep/new.ts"), "new\n");
  writeFileSync(join(root, "src/a.ts"), "a2\n");
  writeFileSync(join(root, "node_modules/pkg/index.js"), "x\n");
  writeFileSync(join(root, "dist/out.js"), "x\n");
  await waitFor("the two changes", async () => {
    await watcher!.flush();
    const changes = relative(seen);
    return changes.includes("created src/deep/new.ts") && changes.includes("changed src/a.ts");
  });
  rmSync(join(root, "src/a.ts"));
  await waitFor("the deletion", async () => {
    await watcher!.flush();
    return relative(seen).includes("deleted src/a.ts");
  });
  expect(relative(seen).filter((c) => c.includes("node_modules") || c.includes("dist"))).toEqual([]);
});

test("a folder moved in is watched, and the files inside are reported as created", async () => {
  const outside = mkdtempSync(join(tmpdir(), "lspmesh-watch-in-"));
  mkdirSync(join(outside, "pkg/sub"), { recursive: true });
  writeFileSync(join(outside, "pkg/sub/b.ts"), "b\n");
  renameSync(join(outside, "pkg"), join(root, "src/pkg"));
  rmSync(outside, { recursive: true, force: true });
  await waitFor("the moved folder's file", async () => {
    await watcher!.flush();
    return relative(seen).includes("created src/pkg/sub/b.ts");
  });
  expect(watcher!.watchedDirectories).toBe(5);
  writeFileSync(join(root, "src/pkg/sub/c.ts"), "c\n");
  await waitFor("a file created in the moved folder", async () => {
    await watcher!.flush();
    return relative(seen).includes("created src/pkg/sub/c.ts");
  });
});

test("a paused folder swapped for a symlink out of the workspace is not watched through it when its pause ends", async () => {
  const outside = mkdtempSync(join(tmpdir(), "lspmesh-watch-out-"));
  try {
    mkdirSync(join(root, "src/burst"));
    await waitFor("the burst folder watched", async () => {
      await watcher!.flush();
      return watcher!.watchedDirectories === 4;
    });
    // 3 000 files at once: more than 2 000 events in a second, so the folder's watch is paused.
    for (let i = 0; i < 3_000; i++) writeFileSync(join(root, `src/burst/f${i}.ts`), "x\n");
    await waitFor("the burst folder's watch paused", () => watcher!.isPaused(join(root, "src/burst")));
    renameSync(join(root, "src/burst"), join(root, "src/burst-old"));
    symlinkSync(outside, join(root, "src/burst"));
    await waitFor("the pause over", () => watcher!.pausedFolders === 0, { timeoutMs: 5_000 });
    // A file outside, then one inside: inotify keeps their order, so once the second is seen the
    // first would have been, had the folder outside been watched through the symlink.
    writeFileSync(join(outside, "leak.ts"), "secret\n");
    writeFileSync(join(root, "src/marker.ts"), "marker\n");
    await waitFor("the file inside", async () => {
      await watcher!.flush();
      return relative(seen).includes("created src/marker.ts");
    });
    expect(relative(seen).filter((c) => c.includes("leak"))).toEqual([]);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

// An event storm, in `npm run test:faults`: a swapper busy on one core for seconds, and pauses of
// up to 30 s to wait out. Both src (its entries swap) and src/race (the folder itself moves) storm,
// so one or both watches are paused at any moment; their pauses double in step.
test.runIf(isFaultsTier())(
  "a folder renamed in a loop has its watch paused, and what changed in it meanwhile is still reported",
  async () => {
    const outside = mkdtempSync(join(tmpdir(), "lspmesh-watch-out-"));
    mkdirSync(join(root, "src/race"));
    symlinkSync(outside, join(root, "src/race-link"));
    await waitFor("the race folder watched", async () => {
      await watcher!.flush();
      return watcher!.watchedDirectories === 4;
    });
    try {
      await using swapper = await startFolderSwapper(join(root, "src/race"), join(root, "src/race-link"));
      // Hundreds of thousands of events a second in src: its watch is paused rather than followed.
      await waitFor("src's watch paused", () => watcher!.isPaused(join(root, "src")), { timeoutMs: 10_000 });
      writeFileSync(join(root, "src/during.ts"), "during\n");
      expect(await swapper.stop()).toBeGreaterThan(1_000);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    // src's watch resumes (after 1 s, 2 s, … up to 30 s while the storm lasted) and its entries are
    // compared with those read before its watch closed. 45 s: a pause of up to 30 s and a margin.
    await waitFor(
      "the file created during the storm",
      async () => {
        await watcher!.flush();
        return relative(seen).includes("created src/during.ts");
      },
      { timeoutMs: 45_000 },
    );
    await waitFor("src watched again", () => watcher!.pausedFolders === 0, { timeoutMs: 35_000 });
    writeFileSync(join(root, "src/after.ts"), "after\n");
    await waitFor("a file created after the storm", async () => {
      await watcher!.flush();
      return relative(seen).includes("created src/after.ts");
    });
  },
  150_000,
);
