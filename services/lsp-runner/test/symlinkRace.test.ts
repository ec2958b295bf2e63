// A workspace folder swapped for a symlink into another tree (renameat2 RENAME_EXCHANGE, in a
// loop) while edits, renames and deletions are applied in it: nothing outside the workspace is
// ever read, written, created or removed, on a runner without workers or Landlock (files are
// reached through pinned folders, never through a path checked earlier). The e2e cross-tenant
// suite runs the same race through the gateway against confined workers.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isFaultsTier, startFolderSwapper } from "@lspmesh/test-kit";
import { afterEach, expect, test } from "vitest";
import { startFixtureRunner, ws } from "./support/fixtureRunner.js";

/** Edits, renames and deletions raced against the swapper: 60 in `npm test`, 200 in test:faults. */
const ATTEMPTS = isFaultsTier() ? 200 : 60;
const CANARY = "OTHER-TENANT-CANARY";
const cleanup: Array<() => unknown> = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function treeHashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length + 1)] = entry.isFile()
      ? createHash("sha256").update(readFileSync(path)).digest("hex")
      : "";
  }
  return out;
}

test(`${ATTEMPTS} edits, renames and deletions while the folder they name is swapped with a symlink out: the other tree is untouched`, async () => {
  const base = mkdtempSync(join(tmpdir(), "lspmesh-symlink-race-"));
  cleanup.push(() => rmSync(base, { recursive: true, force: true }));
  const dir = join(base, "workspace");
  const other = join(base, "other");
  for (const root of [dir, other]) mkdirSync(join(root, "src"), { recursive: true });
  for (const name of ["victim.ts", "moved.ts", "gone.ts"]) {
    writeFileSync(join(other, "src", name), `export const secret = "${CANARY}";\n`);
  }
  writeFileSync(join(dir, "src/victim.ts"), "export const mine = 1;\n");
  symlinkSync(join(other, "src"), join(dir, "src-link"));
  const before = treeHashes(other);

  await using env = await startFixtureRunner({ dir, symbolIndex: { enabled: false }, watchWorkspaces: false });
  await using swapper = await startFolderSwapper(join(dir, "src"), join(dir, "src-link"));
  const insert = { range: { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } }, newText: "// mine\n" };
  const outcomes = new Map<string, number>();
  const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const calls = [
      { files: [{ file: "src/victim.ts", edits: [insert] }], operations: [] },
      { files: [], operations: [{ kind: 2, file: "src/victim.ts", newFile: "src/moved.ts" }] },
      { files: [], operations: [{ kind: 2, file: "src/moved.ts", newFile: "src/victim.ts" }] },
      { files: [], operations: [{ kind: 1, file: "src/gone.ts", newFile: "" }] },
      { files: [], operations: [{ kind: 3, file: "src/gone.ts", newFile: "" }] },
    ];
    for (const edit of calls) {
      const answer = await env.client.applyWorkspaceEdit({ workspace: ws, edit }).then(
        () => "applied",
        (error: { details?: string; metadata?: { get(key: string): unknown[] } }) => {
          const code = String(error.metadata?.get("lspmesh-error-code")[0]);
          return /^(OUTSIDE_WORKSPACE|NOT_FOUND|INVALID_ARGUMENT|STALE_EDIT)$/.test(code)
            ? code
            : `${code}: ${error.details}`;
        },
      );
      count(answer);
    }
  }
  const swaps = await swapper.stop();
  const seen = JSON.stringify(Object.fromEntries(outcomes));
  // The race ran (thousands of swaps), and both sides of it were hit: calls applied while the
  // folder was the workspace's, and calls refused while it pointed out.
  expect(swaps, seen).toBeGreaterThan(1_000);
  expect(outcomes.get("applied") ?? 0, seen).toBeGreaterThan(0);
  expect(treeHashes(other), seen).toEqual(before);
  // Refusals name the path, never a failure of the runner.
  expect(
    [...outcomes.keys()].filter(
      (code) => !/^(applied|OUTSIDE_WORKSPACE|NOT_FOUND|INVALID_ARGUMENT|STALE_EDIT)$/.test(code),
    ),
    seen,
  ).toEqual([]);
  expect(
    Object.keys(treeHashes(dir)).filter((path) => path.includes(".lspmesh-")),
    seen,
  ).toEqual([]);
}, 120_000);
