// What the admin API's reads and diffs show of the control-plane bucket: its records as stored
// (the format of docs/admin-api.md), by id, with every API key's hash left out — a hash is not a
// token, but nothing that reads the API needs one.
import { controlKeys } from "@lspmesh/events";
import { ADMIN_PATH } from "./adminRequest.js";
import {
  AdminError,
  type ControlChange,
  type ControlValues,
  canonical,
  describeChange,
} from "./controlPlaneChanges.js";

type View = Record<string, unknown>;

export function tenantsView(current: ControlValues): View {
  return { tenants: recordsUnder(current, "tenants.") };
}

/** A tenant's record with its workspaces (tombstones included) and keys. */
export function tenantView(current: ControlValues, tenant: string): View {
  return {
    tenant,
    ...recordOf(tenantValue(current, tenant)),
    workspaces: recordsUnder(current, `workspaces.${tenant}.`),
    keys: recordsUnder(current, `keys.${tenant}.`),
  };
}

export function workspacesView(current: ControlValues, tenant: string): View {
  tenantValue(current, tenant);
  return { tenant, workspaces: recordsUnder(current, `workspaces.${tenant}.`) };
}

export function workspaceView(current: ControlValues, tenant: string, workspace: string): View {
  const value = current.get(controlKeys.workspace(tenant, workspace));
  if (value === undefined) {
    tenantValue(current, tenant);
    throw new AdminError(
      "NOT_FOUND",
      `no workspace '${workspace}' in tenant '${tenant}'; GET ${ADMIN_PATH}/tenants/${tenant}/workspaces lists them`,
    );
  }
  return { tenant, workspace, ...recordOf(value) };
}

export function keysView(current: ControlValues, tenant: string): View {
  tenantValue(current, tenant);
  return { tenant, keys: recordsUnder(current, `keys.${tenant}.`) };
}

/** The diff lines of `changes` (as `lspmesh admin` prints them), API key hashes left out. */
export function diffLines(changes: readonly ControlChange[]): string[] {
  return changes.map((change) => describeChange(withoutHash(change)));
}

function tenantValue(current: ControlValues, tenant: string): string {
  const value = current.get(controlKeys.tenant(tenant));
  if (value === undefined)
    throw new AdminError("NOT_FOUND", `no tenant '${tenant}'; GET ${ADMIN_PATH}/tenants lists them`);
  return value;
}

/** Records of the keys `prefix` + id, by id, sorted. */
function recordsUnder(current: ControlValues, prefix: string): View {
  const found = [...current]
    .filter(([key]) => key.startsWith(prefix) && !key.slice(prefix.length).includes("."))
    .sort(([a], [b]) => a.localeCompare(b));
  return Object.fromEntries(found.map(([key, value]) => [key.slice(prefix.length), recordOf(value)]));
}

/** A stored record without its hash; one that is not a JSON object (the gateways ignore it) says so. */
function recordOf(value: string): View {
  let record: unknown;
  try {
    record = JSON.parse(value);
  } catch {
    record = undefined;
  }
  if (!record || typeof record !== "object" || Array.isArray(record))
    return { unreadable: "not a JSON object; the gateways ignore this key" };
  const { sha256: _hash, ...rest } = record as View;
  return rest;
}

function withoutHash(change: ControlChange): ControlChange {
  if (change.value === undefined || !change.key.startsWith("keys.")) return change;
  const record = recordOf(change.value);
  return { ...change, value: canonical("unreadable" in record ? record : { ...record, sha256: "(not shown)" }) };
}
