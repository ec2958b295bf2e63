// A temporary copy of a fixture workspace (tests may edit it), next to an "outside" folder that a
// symlink inside the workspace points at.
import {
  chownSync,
  cpSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));

export interface FixtureWorkspace extends Disposable {
  readonly dir: string;
  readonly outside: string;
}

export function fixtureWorkspace(name: string): FixtureWorkspace {
  const base = mkdtempSync(join(tmpdir(), "lspmesh-e2e-"));
  const dir = join(base, "workspace");
  const outside = join(base, "outside");
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.ts"), "export const secret = 42;\n");
  symlinkSync(join(outside, "secret.ts"), join(dir, "src/leak.ts"));
  return { dir, outside, [Symbol.dispose]: () => rmSync(base, { recursive: true, force: true }) };
}

/** The committed (read-only) copy of a fixture workspace, e.g. fixturePath("typescript-basic"). */
export function fixturePath(name: string): string {
  return join(FIXTURES, name);
}

/** The user tenant workers run as when the tests run as root (nobody). */
export const UNPRIVILEGED_USER = { uid: 65534, gid: 65534 } as const;

/**
 * Gives a folder and everything below it to `user` (links themselves, not what they point at): a
 * workspace a worker running as that user may write. Needs root.
 */
export function chownTree(dir: string, user: { uid: number; gid: number } = UNPRIVILEGED_USER): void {
  chownSync(dir, user.uid, user.gid);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    lchownSync(join(entry.parentPath, entry.name), user.uid, user.gid);
  }
}
