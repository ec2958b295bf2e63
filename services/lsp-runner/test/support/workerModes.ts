// The confinements a tenant-worker test runs under, and how it finds a tenant's worker process.
import { readFileSync } from "node:fs";
import { needs, UNPRIVILEGED_USER } from "@lspmesh/test-kit";
import { landlockAbi } from "../../src/confinement/landlock.js";
import { processesWorkingIn } from "./processes.js";

/**
 * Both layers where bubblewrap works (its pid namespace hides every other process), and Landlock
 * alone; none without Landlock (said on stderr, naming `test`). As root, Landlock alone does not
 * scope /proc/<pid>/environ: the workers then run as an unprivileged user (`workerUser`), as they
 * do in a Pod Security "restricted" pod.
 */
export function workerConfinements(test: string) {
  const landlock = landlockAbi();
  if (landlock === 0) {
    process.stderr.write(`skipped: ${test} needs Landlock (Linux ≥ 5.13 with landlock in lsm=)\n`);
    return [];
  }
  const asRoot = process.getuid?.() === 0;
  return [
    { mode: "landlock", sandbox: "none" as const, workerUser: asRoot ? UNPRIVILEGED_USER : undefined },
    ...(needs("bubblewrap", test)
      ? [{ mode: "landlock+bwrap", sandbox: "bwrap" as const, workerUser: undefined }]
      : []),
  ];
}

/** The pid of the worker process working in `tenantFolder`, or undefined. */
export async function workerProcessIn(tenantFolder: string): Promise<number | undefined> {
  return (await processesWorkingIn(tenantFolder)).find((pid) =>
    readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerMain"),
  );
}
