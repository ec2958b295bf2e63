// What an admin command changes in the control-plane bucket, computed from its current values
// before anything is written: validated the way the gateway validates the same records, printed as
// a diff, applied key by key. Pure functions: the store (controlPlaneStore.ts) does the I/O.
import { randomBytes } from "node:crypto";
import {
  type ControlApiKey,
  type ControlTenant,
  type ControlWorkspace,
  controlKeys,
  parseControlKey,
} from "@lspmesh/events";
import { ID_PATTERN } from "@lspmesh/proto";
import { type ApiKeyRecord, ApiKeyStore, sha256Hex } from "../auth/apiKeys.js";
import { knownScopes, SCOPE_CHOICES } from "../auth/principal.js";
import { parseTenantsFile } from "../tenancy/tenants.js";

/** A refused admin request; the message names the fix. */
export class AdminError extends Error {
  constructor(
    readonly code: "INVALID_ARGUMENT" | "NOT_FOUND" | "ALREADY_EXISTS",
    message: string,
  ) {
    super(message);
    this.name = "AdminError";
  }
}

export interface ControlChange {
  key: string;
  /** The new value (JSON text); undefined deletes the key. */
  value?: string;
  /** The value it replaces; undefined when the key is new. */
  before?: string;
}

/** Current values by key (ControlPlaneStore.values()). */
export type ControlValues = ReadonlyMap<string, string>;

const TOMBSTONE: ControlWorkspace = { v: 1, state: "deleted" };

/** One diff line per change: `+ key value`, `~ key value`, `- key`. */
export function describeChange(change: ControlChange): string {
  if (change.value === undefined) return `- ${change.key}`;
  return `${change.before === undefined ? "+" : "~"} ${change.key} ${change.value}`;
}

/** Adds a tenant, or changes its limits. */
export function tenantPut(
  current: ControlValues,
  tenant: string,
  limits?: ControlTenant["limits"],
  workspacePattern?: string,
): ControlChange[] {
  checkId("tenant", tenant);
  const record = validTenant(tenant, limits, workspacePattern);
  return changed(current, controlKeys.tenant(tenant), record);
}

/** Removes a tenant: its keys are deleted and its live workspaces become tombstones. */
export function tenantRemove(current: ControlValues, tenant: string): ControlChange[] {
  checkId("tenant", tenant);
  if (!current.has(controlKeys.tenant(tenant)))
    throw new AdminError("NOT_FOUND", `no tenant '${tenant}'; see lspmesh admin tenants list`);
  const changes: ControlChange[] = [];
  for (const [key, value] of current) {
    const parsed = parseControlKey(key);
    if (!parsed || !("tenant" in parsed) || parsed.tenant !== tenant) continue;
    if (parsed.kind === "workspace") {
      if (!isTombstone(value)) changes.push({ key, value: canonical(TOMBSTONE), before: value });
    } else changes.push({ key, before: value });
  }
  return changes;
}

/** Adds (or revives) a workspace of an existing tenant. */
export function workspacePut(
  current: ControlValues,
  tenant: string,
  workspace: string,
  languages?: string[],
  options: { create?: boolean; idleTtlSeconds?: number; now?: Date } = {},
): ControlChange[] {
  checkId("tenant", tenant);
  checkId("workspace", workspace);
  needTenant(current, tenant);
  if (options.idleTtlSeconds !== undefined && !(Number.isInteger(options.idleTtlSeconds) && options.idleTtlSeconds > 0))
    throw new AdminError("INVALID_ARGUMENT", "the idle TTL must be a whole number of seconds above 0, e.g. 7200 (2h)");
  if (languages && !languages.every((language) => /^[a-z0-9_+-]{1,40}$/.test(language)))
    throw new AdminError("INVALID_ARGUMENT", `languages must be language ids such as typescript,python`);
  const record: ControlWorkspace = {
    v: 1,
    ...(languages?.length ? { languages } : {}),
    // The runners serving the tenant make the folder when absent (and again after a restart).
    ...(options.create ? { create: true as const } : {}),
    // An idle TTL counts from the last use, or from now when it was never used.
    ...(options.idleTtlSeconds
      ? { idleTtlSeconds: options.idleTtlSeconds, at: (options.now ?? new Date()).toISOString() }
      : {}),
  };
  return changed(current, controlKeys.workspace(tenant, workspace), record);
}

/** Deletes a workspace: a tombstone, so calls for it are told it was deleted. */
export function workspaceRemove(
  current: ControlValues,
  tenant: string,
  workspace: string,
  options: { removeFolder?: boolean } = {},
): ControlChange[] {
  checkId("tenant", tenant);
  checkId("workspace", workspace);
  const key = controlKeys.workspace(tenant, workspace);
  const before = current.get(key);
  if (before === undefined || isTombstone(before))
    throw new AdminError(
      "NOT_FOUND",
      `no workspace '${workspace}' in tenant '${tenant}'; see lspmesh admin workspaces list ${tenant}`,
    );
  // With removeFolder the runners also delete its folder (everything in it) after stopping its servers.
  return [{ key, value: canonical(options.removeFolder ? { ...TOMBSTONE, removeFolder: true } : TOMBSTONE), before }];
}

/** A new API key: the token (shown once, never stored) and the change storing its hash. */
export function keyAdd(
  current: ControlValues,
  tenant: string,
  id: string,
  scopes: string[],
  workspaces?: string[],
): { token: string; changes: ControlChange[] } {
  checkId("tenant", tenant);
  checkId("key id", id);
  needTenant(current, tenant);
  const key = controlKeys.apiKey(tenant, id);
  if (current.has(key))
    throw new AdminError("ALREADY_EXISTS", `tenant '${tenant}' has a key '${id}'; remove it first or pick another id`);
  const token = `lsm_${randomBytes(32).toString("base64url")}`;
  const record = validKey({ id, tenant, sha256: sha256Hex(token), scopes, workspaces });
  return { token, changes: [{ key, value: canonical(record) }] };
}

export function keyRemove(current: ControlValues, tenant: string, id: string): ControlChange[] {
  checkId("tenant", tenant);
  checkId("key id", id);
  const key = controlKeys.apiKey(tenant, id);
  const before = current.get(key);
  if (before === undefined)
    throw new AdminError("NOT_FOUND", `tenant '${tenant}' has no key '${id}'; see lspmesh admin keys list ${tenant}`);
  return [{ key, before }];
}

/**
 * Makes the bucket equal to a file: the tenants file's format (tenants, their workspaces and
 * limits, defaults) plus an optional `keys` list in the API keys file's format (hashes only).
 * Keys, tenants and defaults absent from the file are deleted; workspaces absent from it become
 * tombstones (their runners clean them up); existing tombstones stay. Applying it twice changes nothing.
 */
export function applyFile(current: ControlValues, raw: unknown, source: string): ControlChange[] {
  let file: ReturnType<typeof parseTenantsFile>;
  try {
    file = parseTenantsFile(raw, source);
  } catch (error) {
    throw new AdminError("INVALID_ARGUMENT", (error as Error).message);
  }
  const keysRaw = (raw as { keys?: unknown }).keys;
  if (keysRaw !== undefined && !Array.isArray(keysRaw))
    throw new AdminError("INVALID_ARGUMENT", `${source}: "keys" must be a list of API key records`);
  const keys = (keysRaw ?? []) as ApiKeyRecord[];
  try {
    new ApiKeyStore(keys);
  } catch (error) {
    throw new AdminError("INVALID_ARGUMENT", `${source}: ${(error as Error).message}`);
  }
  const desired = new Map<string, string>();
  if (file.defaults?.limits && Object.keys(file.defaults.limits).length > 0)
    desired.set(controlKeys.defaults, canonical({ v: 1, limits: file.defaults.limits }));
  for (const [tenant, config] of Object.entries(file.tenants)) {
    desired.set(controlKeys.tenant(tenant), canonical(validTenant(tenant, config.limits, config.workspacePattern)));
    for (const workspace of config.workspaces) {
      const record: ControlWorkspace = workspace.languages ? { v: 1, languages: workspace.languages } : { v: 1 };
      desired.set(controlKeys.workspace(tenant, workspace.id), canonical(record));
    }
  }
  keys.forEach((record, index) => {
    if (!ID_PATTERN.test(record.id))
      throw new AdminError(
        "INVALID_ARGUMENT",
        `${source}: key #${index + 1} id '${record.id}' must be a-z, 0-9, '_' or '-' (it names the key in the bucket)`,
      );
    if (!file.tenants[record.tenant])
      throw new AdminError(
        "INVALID_ARGUMENT",
        `${source}: key '${record.id}' names tenant '${record.tenant}', which the file does not list`,
      );
    desired.set(controlKeys.apiKey(record.tenant, record.id), canonical(validKey(record)));
  });
  const changes: ControlChange[] = [];
  for (const [key, value] of desired) {
    const before = current.get(key);
    if (before === undefined || canonicalText(before) !== value)
      changes.push({ key, value, ...(before === undefined ? {} : { before }) });
  }
  for (const [key, before] of current) {
    if (desired.has(key)) continue;
    const parsed = parseControlKey(key);
    if (parsed?.kind === "workspace") {
      if (!isTombstone(before)) changes.push({ key, value: canonical(TOMBSTONE), before });
    } else if (parsed) changes.push({ key, before });
  }
  return changes.sort((a, b) => a.key.localeCompare(b.key));
}

/** The values `current` holds once `changes` are written (what a dry run or a test expects). */
export function appliedChanges(current: ControlValues, changes: readonly ControlChange[]): Map<string, string> {
  const next = new Map(current);
  for (const change of changes) {
    if (change.value === undefined) next.delete(change.key);
    else next.set(change.key, change.value);
  }
  return next;
}

/** JSON text with keys in a fixed order, so equal records compare equal as text. */
export function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function canonicalText(text: string): string {
  try {
    return canonical(JSON.parse(text));
  } catch {
    return text;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

function isTombstone(value: string): boolean {
  try {
    return (JSON.parse(value) as ControlWorkspace).state === "deleted";
  } catch {
    return false;
  }
}

function changed(current: ControlValues, key: string, record: unknown): ControlChange[] {
  const value = canonical(record);
  const before = current.get(key);
  if (before !== undefined && canonicalText(before) === value) return [];
  return [{ key, value, ...(before === undefined ? {} : { before }) }];
}

/** Refuses anything but an id (a-z, 0-9, '_', '-'): each is one NATS subject token of a bucket key. */
export function checkId(what: string, id: string): void {
  if (!ID_PATTERN.test(id))
    throw new AdminError(
      "INVALID_ARGUMENT",
      `${what} '${id}' is not an id: use a-z, 0-9, '_' and '-' (at most 63, starting with a letter or digit)`,
    );
}

function needTenant(current: ControlValues, tenant: string): void {
  if (!current.has(controlKeys.tenant(tenant)))
    throw new AdminError("NOT_FOUND", `no tenant '${tenant}'; add it first: lspmesh admin tenants add ${tenant}`);
}

function validTenant(
  tenant: string,
  limits: ControlTenant["limits"] | undefined,
  workspacePattern?: string,
): ControlTenant {
  try {
    const parsed = parseTenantsFile({ tenants: { [tenant]: { workspaces: [], limits, workspacePattern } } }, "tenant");
    const checked = parsed.tenants[tenant]!.limits;
    return {
      v: 1,
      ...(checked && Object.keys(checked).length > 0 ? { limits: checked } : {}),
      ...(workspacePattern ? { workspacePattern } : {}),
    };
  } catch (error) {
    throw new AdminError("INVALID_ARGUMENT", (error as Error).message);
  }
}

function validKey(record: ApiKeyRecord): ControlApiKey {
  if (!Array.isArray(record.scopes) || knownScopes(record.scopes).length !== record.scopes.length)
    throw new AdminError("INVALID_ARGUMENT", `key '${record.id}': scopes must be ${SCOPE_CHOICES}`);
  try {
    new ApiKeyStore([record]);
  } catch (error) {
    throw new AdminError("INVALID_ARGUMENT", (error as Error).message);
  }
  return {
    v: 1,
    sha256: record.sha256.toLowerCase(),
    scopes: record.scopes,
    ...(record.workspaces ? { workspaces: record.workspaces } : {}),
  };
}
