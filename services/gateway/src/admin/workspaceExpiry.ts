// Idle TTLs: a workspace whose record sets idleTtlSeconds is deleted (a tombstone; its folder too
// when lspmesh made it, `create`) once no call used it for that long. Its last use is the latest of
// what gateways recorded (KV `lspmesh-usage`) and the record's `at` (when it was added).
// Pure planning here; `lspmesh admin workspaces expire` and a gateway with the admin identity
// (WorkspaceExpiryTimer) write the changes.
import { type ControlWorkspace, parseControlKey, usageKey } from "@lspmesh/events";
import { type ControlChange, type ControlValues, workspaceRemove } from "./controlPlaneChanges.js";

export interface ExpiredWorkspace {
  tenant: string;
  workspace: string;
  /** Idle for this long, ms. */
  idleMs: number;
  removeFolder: boolean;
}

/** Workspaces idle past their TTL at `now` (ms), given each workspace key's last recorded use (ms). */
export function expiredWorkspaces(
  current: ControlValues,
  lastUse: ReadonlyMap<string, number>,
  now: number,
): ExpiredWorkspace[] {
  const expired: ExpiredWorkspace[] = [];
  for (const [key, value] of current) {
    const parsed = parseControlKey(key);
    if (parsed?.kind !== "workspace") continue;
    let record: ControlWorkspace;
    try {
      record = JSON.parse(value) as ControlWorkspace;
    } catch {
      continue;
    }
    const ttl = record.idleTtlSeconds;
    if (record.state === "deleted" || typeof ttl !== "number" || !(ttl > 0)) continue;
    const added = record.at ? Date.parse(record.at) : Number.NaN;
    const used = lastUse.get(usageKey(parsed.tenant, parsed.workspace));
    const since = Math.max(Number.isNaN(added) ? 0 : added, used ?? 0);
    // Neither a use nor an addition time: nothing to count from (never expired).
    if (since === 0) continue;
    if (now - since >= ttl * 1000)
      expired.push({
        tenant: parsed.tenant,
        workspace: parsed.workspace,
        idleMs: now - since,
        removeFolder: record.create === true,
      });
  }
  return expired.sort((a, b) => `${a.tenant}/${a.workspace}`.localeCompare(`${b.tenant}/${b.workspace}`));
}

/** The tombstones of the expired workspaces. */
export function expiryChanges(current: ControlValues, expired: readonly ExpiredWorkspace[]): ControlChange[] {
  return expired.flatMap(({ tenant, workspace, removeFolder }) =>
    workspaceRemove(current, tenant, workspace, { removeFolder }),
  );
}
