// The base commit as files on disk, for the embedded base session: the commit's tree exported to
// a temporary folder (no worktree metadata left in the repository if the check is killed), with
// the working tree's ignored node_modules folders linked in, so that imports resolve in the base
// as they do in the head instead of turning into "cannot find module" noise on one side only.
import { mkdtemp, realpath, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Git } from "./git.js";

export interface BaseCheckout {
  /** The checked folder inside the exported tree (the same subfolder as the head's). */
  readonly dir: string;
  /** Removes the export. Idempotent. */
  close(): Promise<void>;
}

export async function exportBase(git: Git, commit: string): Promise<BaseCheckout> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "lspmesh-base-")));
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= rm(root, { recursive: true, force: true });
    return closed;
  };
  try {
    await git.exportTree(commit, root);
    for (const folder of await git.nodeModulesFolders()) {
      const target = join(root, folder);
      // Only where the base has the parent folder and no node_modules of its own (it never does: ignored).
      const parent = await stat(dirname(target)).catch(() => undefined);
      if (parent?.isDirectory()) await symlink(join(git.root, folder), target, "dir").catch(() => {});
    }
    return { dir: join(root, git.prefix), close };
  } catch (error) {
    await close();
    throw error;
  }
}
