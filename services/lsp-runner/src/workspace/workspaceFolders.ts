// Workspace folders made and removed on the control plane's word (`lspmesh admin workspaces add
// --create`, `remove --remove-folder`), under the runner's workspaces root: `<root>/<tenant>/<ws>`.
// A workspace's bytes are the tenant's, so nothing inside is trusted while removing it:
//   1. the tenant's folder must be a real folder (never a link), and the workspace's entry is taken
//      as it is (a link or a file is unlinked, never followed);
//   2. the folder is renamed, atomically, into `<root>/.lspmesh-trash/` (no tenant id starts with
//      '.'), out of the tenant's tree: a link planted in it later cannot redirect the removal;
//   3. the removal runs in a process confined by Landlock to the trash folder, so that a link swapped
//      in while it walks (by a process that still holds a directory inside) reaches nothing else.
//      Without Landlock the removal runs in this process (the workspace's servers were stopped first).
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { lstat, mkdir, realpath, rename, rm, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { landlockAbi } from "../confinement/landlock.js";
import { confinedNodeArgs } from "../confinement/launcherArgs.js";
import { SYSTEM_READ_ONLY, SYSTEM_READ_WRITE } from "../confinement/systemPaths.js";

/** Where removed workspaces go before they are deleted (not a tenant id: ids never start with '.'). */
export const TRASH_FOLDER = ".lspmesh-trash";

export class WorkspaceFolderError extends Error {
  override name = "WorkspaceFolderError";
}

const isCode = (error: unknown, code: string) => (error as NodeJS.ErrnoException | undefined)?.code === code;

export class WorkspaceFolders {
  constructor(
    private readonly root: string,
    /** Deletes a folder already moved to the trash (default: confined when Landlock is here). */
    private readonly removeMoved: (path: string, trash: string) => Promise<void> = removeConfined,
  ) {}

  /** Makes `<root>/<tenant>/<workspace>` (and the tenant's folder) when absent. */
  async create(tenant: string, workspace: string): Promise<"created" | "exists"> {
    const tenantDir = await this.tenantFolder(tenant, true);
    const folder = join(tenantDir, workspace);
    try {
      await mkdir(folder, { mode: 0o755 });
      return "created";
    } catch (error) {
      if (!isCode(error, "EEXIST")) throw error;
      if (!(await lstat(folder)).isDirectory())
        throw new WorkspaceFolderError(`${folder} exists and is not a folder (a link or a file): left as it is`);
      return "exists";
    }
  }

  /** Removes `<root>/<tenant>/<workspace>` and everything below it, following no link. */
  async remove(tenant: string, workspace: string): Promise<"removed" | "absent"> {
    const tenantDir = await this.tenantFolder(tenant, false).catch((error: unknown) => {
      if (isCode(error, "ENOENT")) return undefined;
      throw error;
    });
    if (!tenantDir) return "absent";
    const folder = join(tenantDir, workspace);
    const entry = await lstat(folder).catch((error: unknown) => {
      if (isCode(error, "ENOENT")) return undefined;
      throw error;
    });
    if (!entry) return "absent";
    if (!entry.isDirectory()) {
      await unlink(folder); // a link (never its target) or a file
      return "removed";
    }
    const trash = join(this.root, TRASH_FOLDER);
    await mkdir(trash, { mode: 0o700 }).catch((error: unknown) => {
      if (!isCode(error, "EEXIST")) throw error;
    });
    const trashEntry = await lstat(trash);
    if (!trashEntry.isDirectory()) throw new WorkspaceFolderError(`${trash} is not a folder`);
    const moved = join(trash, `${tenant}.${workspace}.${randomUUID()}`);
    try {
      await rename(folder, moved);
    } catch (error) {
      if (isCode(error, "ENOENT")) return "absent"; // removed meanwhile (another runner)
      throw error;
    }
    await this.removeMoved(moved, trash);
    return "removed";
  }

  /** `<root>/<tenant>`, a real folder (created when asked). */
  private async tenantFolder(tenant: string, create: boolean): Promise<string> {
    const dir = join(this.root, tenant);
    if (create)
      await mkdir(dir, { mode: 0o755 }).catch((error: unknown) => {
        if (!isCode(error, "EEXIST")) throw error;
      });
    if (!(await lstat(dir)).isDirectory())
      throw new WorkspaceFolderError(`${dir} is not a folder (a link?): workspace folders are not touched`);
    return dir;
  }
}

/** Removes `path` (inside `trash`) in a node process confined to `trash`; in this process without Landlock. */
export async function removeConfined(path: string, trash: string): Promise<void> {
  if (landlockAbi() === 0) {
    await rm(path, { recursive: true, force: true });
    return;
  }
  const node = dirname(await realpath(process.execPath));
  const child = spawn(
    process.execPath,
    confinedNodeArgs(
      { readWrite: [trash, ...SYSTEM_READ_WRITE], readOnly: [node, ...SYSTEM_READ_ONLY], denyNetwork: true },
      ["-e", 'require("node:fs").rmSync(process.argv[1], { recursive: true, force: true })', path],
    ),
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk.slice(0, 2000)));
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new WorkspaceFolderError(`removing ${path} failed (exit ${code}): ${stderr.trim()}`);
}
