// The control plane: tenants, their workspaces and their API keys in one NATS KV bucket that every
// gateway watches (docs/deploy.md, "Onboarding"). Operators change it with `lspmesh admin`; a
// change applies on every gateway as soon as its watch delivers it (milliseconds), no restart.
//
// Keys (every id matches ID_PATTERN, so each is one NATS subject token):
//   defaults                      {"v":1,"limits":{…}}                      limits of tenants that set none
//   tenants.<tenant>              {"v":1,"limits":{…}}
//   workspaces.<tenant>.<ws>      {"v":1,"languages":[…]} or {"v":1,"state":"deleted",…}
//   keys.<tenant>.<key id>        {"v":1,"sha256":"…","scopes":[…],"workspaces":[…]}
// A deleted workspace stays as a tombstone (state "deleted") until it is added again, so a call for
// it is told it was deleted rather than that it never existed.

/** KV bucket of tenants, workspaces and API-key hashes. */
export const CONTROL_BUCKET = "lspmesh-control";
/** The JetStream stream behind CONTROL_BUCKET. */
export const CONTROL_STREAM = `KV_${CONTROL_BUCKET}`;

export interface ControlLimits {
  concurrentCalls?: number;
  callsPerSecond?: number;
}

export interface ControlTenant {
  v: 1;
  limits?: ControlLimits;
  /** Workspace ids matching it (`*` wildcards, e.g. "task-*") are the tenant's without being listed. */
  workspacePattern?: string;
}

export interface ControlWorkspace {
  v: 1;
  /** Language ids, for workspace-wide calls; absent = whatever the runners serve. */
  languages?: string[];
  /** "deleted": a tombstone (calls get NOT_FOUND saying so); absent = live. */
  state?: "deleted";
  /** Live: the runners serving the tenant make its folder under their workspaces root when absent. */
  create?: true;
  /** Tombstone: the runners also remove its folder (and everything in it). */
  removeFolder?: true;
  /**
   * Live: deleted (a tombstone, its folder removed when `create` made it) once no call used it for
   * this long, in seconds, counted from the last use gateways record (WORKSPACE_USAGE_BUCKET) or `at`.
   */
  idleTtlSeconds?: number;
  /** When the workspace was added or deleted (ISO 8601), for `admin … show`. */
  at?: string;
}

export interface ControlApiKey {
  v: 1;
  /** Lower-case hex SHA-256 of the token's UTF-8 bytes (the token itself is never stored). */
  sha256: string;
  scopes: string[];
  /** Narrows the key to these workspaces; absent = all of its tenant's. */
  workspaces?: string[];
}

/** One key of the bucket, parsed. */
export type ControlKey =
  | { kind: "defaults" }
  | { kind: "tenant"; tenant: string }
  | { kind: "workspace"; tenant: string; workspace: string }
  | { kind: "apiKey"; tenant: string; id: string };

export const controlKeys = {
  defaults: "defaults",
  tenant: (tenant: string) => `tenants.${tenant}`,
  workspace: (tenant: string, workspace: string) => `workspaces.${tenant}.${workspace}`,
  apiKey: (tenant: string, id: string) => `keys.${tenant}.${id}`,
  /** Every key of one tenant's workspaces (a filter for a runner that serves only that tenant). */
  tenantWorkspaces: (tenant: string) => `workspaces.${tenant}.*`,
} as const;

/** What a bucket key names; undefined for keys lspmesh does not write (ignored). */
export function parseControlKey(key: string): ControlKey | undefined {
  const parts = key.split(".");
  if (parts.length === 1 && parts[0] === "defaults") return { kind: "defaults" };
  if (parts.length === 2 && parts[0] === "tenants") return { kind: "tenant", tenant: parts[1]! };
  if (parts.length === 3 && parts[0] === "workspaces")
    return { kind: "workspace", tenant: parts[1]!, workspace: parts[2]! };
  if (parts.length === 3 && parts[0] === "keys") return { kind: "apiKey", tenant: parts[1]!, id: parts[2]! };
  return undefined;
}

/** Everything the bucket holds, by kind, as last seen (values parsed from JSON). */
export interface ControlSnapshot {
  defaults?: ControlTenant;
  tenants: Map<string, ControlTenant>;
  /** tenant → workspace id → record (tombstones included). */
  workspaces: Map<string, Map<string, ControlWorkspace>>;
  /** tenant → key id → record. */
  apiKeys: Map<string, Map<string, ControlApiKey>>;
}

export function emptyControlSnapshot(): ControlSnapshot {
  return { tenants: new Map(), workspaces: new Map(), apiKeys: new Map() };
}

/**
 * Applies one KV change to a snapshot: a put stores the parsed value, a delete or purge removes
 * it. Returns a problem for a value that is not JSON (the key is then dropped, as if deleted).
 */
export function applyControlChange(
  snapshot: ControlSnapshot,
  change: { key: string; operation: string; value: Uint8Array },
): string | undefined {
  const key = parseControlKey(change.key);
  if (!key) return `ignored control key '${change.key}'`;
  let value: unknown;
  let problem: string | undefined;
  if (change.operation === "PUT") {
    try {
      value = JSON.parse(new TextDecoder().decode(change.value));
      if (!value || typeof value !== "object") throw new Error("not an object");
    } catch (error) {
      problem = `control key '${change.key}' holds no JSON object (${(error as Error).message}); ignored`;
      value = undefined;
    }
  }
  const nested = <T>(map: Map<string, Map<string, T>>, tenant: string, id: string, record: T | undefined) => {
    let inner = map.get(tenant);
    if (record === undefined) {
      inner?.delete(id);
      if (inner?.size === 0) map.delete(tenant);
      return;
    }
    if (!inner) {
      inner = new Map();
      map.set(tenant, inner);
    }
    inner.set(id, record);
  };
  switch (key.kind) {
    case "defaults":
      snapshot.defaults = value as ControlTenant | undefined;
      break;
    case "tenant":
      if (value === undefined) snapshot.tenants.delete(key.tenant);
      else snapshot.tenants.set(key.tenant, value as ControlTenant);
      break;
    case "workspace":
      nested(snapshot.workspaces, key.tenant, key.workspace, value as ControlWorkspace | undefined);
      break;
    case "apiKey":
      nested(snapshot.apiKeys, key.tenant, key.id, value as ControlApiKey | undefined);
      break;
  }
  return problem;
}

/**
 * KV bucket of each workspace's last use, `<tenant>.<workspace>` → {"v":1,"at":<ms since epoch>}:
 * gateways write it (at most every USAGE_RECORD_EVERY_MS per workspace and gateway), the idle-TTL
 * expiry reads it. Apart from the control plane so that uses do not wake its watchers.
 */
export const WORKSPACE_USAGE_BUCKET = "lspmesh-usage";
export const WORKSPACE_USAGE_STREAM = `KV_${WORKSPACE_USAGE_BUCKET}`;
/** How often a gateway records a workspace's use, at most, in ms. */
export const USAGE_RECORD_EVERY_MS = 30_000;

export interface WorkspaceUsage {
  v: 1;
  /** Last use seen, ms since the epoch. */
  at: number;
}

export const usageKey = (tenant: string, workspace: string) => `${tenant}.${workspace}`;
