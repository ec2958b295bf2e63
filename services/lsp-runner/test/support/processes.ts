// What the tests check about processes, from /proc: which are still alive in given process groups
// or working inside a directory — never by name, since other runners' servers share the machine.
import { readdir, readlink } from "node:fs/promises";
import { waitFor } from "@lspmesh/test-kit";
import { processesInGroups } from "../../src/lsp/process/processGroups.js";

/** Pids of processes whose working directory is `dir` or inside it. */
export async function processesWorkingIn(dir: string): Promise<number[]> {
  const names = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  const found = await Promise.all(
    names.map(async (name) => {
      const cwd = await readlink(`/proc/${name}/cwd`).catch(() => "");
      return cwd === dir || cwd.startsWith(`${dir}/`) ? [Number(name)] : [];
    }),
  );
  return found.flat();
}

/** Pids still alive in the given process groups (zombies have exited: they do not count). */
export async function processesInTheseGroups(pgids: Iterable<number>): Promise<number[]> {
  return (await processesInGroups(new Set(pgids))).filter((p) => p.state !== "Z").map((p) => p.pid);
}

/** Resolves once no process is left in the groups (exited and reaped). */
export async function groupsGone(pgids: Iterable<number>, timeoutMs?: number): Promise<void> {
  const groups = [...pgids];
  await waitFor(
    `process groups ${groups.join(", ")} to be gone`,
    async () => (await processesInTheseGroups(groups)).length === 0,
    { timeoutMs },
  );
}
