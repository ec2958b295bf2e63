// The confinements a tenant-worker test runs under, its two tenants' workspaces, and how it finds a
// tenant's worker process.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isFaultsTier, needs, UNPRIVILEGED_USER } from "@lspmesh/test-kit";
import { landlockAbi } from "../../src/confinement/landlock.js";
import { processesWorkingIn } from "./processes.js";

type Confinement = "landlock" | "landlock+bwrap";

/**
 * Both layers where bubblewrap works (its pid namespace hides every other process), and Landlock
 * alone; none without Landlock (said on stderr, naming `test`). As root, Landlock alone does not
 * scope /proc/<pid>/environ: the workers then run as an unprivileged user (`workerUser`), as they
 * do in a Pod Security "restricted" pod. The quick tier runs `quick` only (or the other where it
 * cannot run): the files share the two modes between them and `npm run test:faults` runs both.
 */
export function workerConfinements(test: string, quick: Confinement) {
  const landlock = landlockAbi();
  if (landlock === 0) {
    process.stderr.write(`skipped: ${test} needs Landlock (Linux ≥ 5.13 with landlock in lsm=)\n`);
    return [];
  }
  const asRoot = process.getuid?.() === 0;
  const modes = [
    { mode: "landlock" as Confinement, sandbox: "none" as const, workerUser: asRoot ? UNPRIVILEGED_USER : undefined },
    ...(needs("bubblewrap", test)
      ? [{ mode: "landlock+bwrap" as Confinement, sandbox: "bwrap" as const, workerUser: undefined }]
      : []),
  ];
  if (isFaultsTier()) return modes;
  return [modes.find((confinement) => confinement.mode === quick) ?? modes[0]!];
}

/** The tenants of a tenant-worker test, each with one workspace, "web". */
export const WORKER_TENANTS = ["acme", "globex"] as const;

/**
 * Each tenant's workspace on `volume` (<volume>/<tenant>/web): a strict ES2022 tsconfig and the
 * files `sources` gives for that tenant, under src/.
 */
export function writeTenantWorkspaces(volume: string, sources: (tenant: string) => Record<string, string>): void {
  for (const tenant of WORKER_TENANTS) {
    const src = join(volume, tenant, "web", "src");
    mkdirSync(src, { recursive: true });
    writeFileSync(
      join(volume, tenant, "web", "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, lib: ["ES2022"], types: [] } }),
    );
    for (const [name, text] of Object.entries(sources(tenant))) writeFileSync(join(src, name), text);
  }
}

/** The pid of the worker process working in `tenantFolder`, or undefined. */
export async function workerProcessIn(tenantFolder: string): Promise<number | undefined> {
  return (await processesWorkingIn(tenantFolder)).find((pid) =>
    readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerMain"),
  );
}
