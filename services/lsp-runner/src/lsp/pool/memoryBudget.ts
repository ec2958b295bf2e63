// A default memory budget for the language servers of a runner in a container: a share of the
// container's memory limit (cgroup v2 memory.max, or v1 memory.limit_in_bytes), leaving the rest to
// the runner itself and to servers growing between two checks.
import { readFile } from "node:fs/promises";

/** Share of the container's memory limit the language servers may use together (75 %). */
const SHARE_OF_LIMIT = 0.75;
const CGROUP_LIMIT_FILES = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"];

/** Parses a cgroup memory limit; undefined for "max" and the v1 "no limit" value (close to 2^63). */
export function parseCgroupLimit(text: string): number | undefined {
  const value = Number(text.trim());
  if (!Number.isSafeInteger(value) || value <= 0) return undefined;
  return value;
}

/** 75 % of the container's memory limit in bytes, or 0 (no budget) when there is none. */
export async function containerMemoryBudget(): Promise<number> {
  for (const file of CGROUP_LIMIT_FILES) {
    const text = await readFile(file, "utf8").catch(() => undefined);
    const limit = text === undefined ? undefined : parseCgroupLimit(text);
    if (limit !== undefined) return Math.floor(limit * SHARE_OF_LIMIT);
  }
  return 0;
}
