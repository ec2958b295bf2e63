// The folder a runner keeps its workers' homes and temporary folders in, when the operator names
// none: `<tmpdir>/lspmesh-workers-<pid>-<random>`, removed when the runner stops. A runner killed
// outright (SIGKILL, OOM) cannot remove its own: the next runner removes every such folder whose
// process is gone (its tenants' server caches, possibly large), never one of a live process.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const STATE_FOLDER = /^lspmesh-workers-(\d+)-[A-Za-z0-9]{6}$/;

/** A fresh state folder named after this process. */
export function createStateFolder(parent: string = tmpdir()): string {
  return mkdtempSync(join(parent, `lspmesh-workers-${process.pid}-`));
}

/** Removes the state folders of runners that are gone; returns their paths. */
export function removeStaleStateFolders(parent: string = tmpdir()): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(parent)) {
    const pid = Number(STATE_FOLDER.exec(name)?.[1]);
    if (!pid || pid === process.pid || isAlive(pid)) continue;
    const path = join(parent, name);
    rmSync(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, someone else's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
