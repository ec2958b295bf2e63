// Tenants, workspaces and API keys followed live from the control-plane KV bucket (one watch; a
// change applies as soon as it is delivered, no restart). The bucket's values are turned into the
// same TenantsFile and API-key records the file-based setup reads, so both paths share the
// resolver, the key store and their checks.
import {
  applyControlChange,
  CONTROL_BUCKET,
  type ControlApiKey,
  type ControlSnapshot,
  type ControlTenant,
  emptyControlSnapshot,
  KvFollower,
  type KvWatchSource,
} from "@lspmesh/events";
import { type ApiKeyRecord, ApiKeyStore } from "../auth/apiKeys.js";
import { parseTenantsFile, type TenantConfig, type TenantsFile, TenantWorkspaceResolver } from "./tenants.js";

export class ControlPlaneTenancy {
  readonly resolver = new TenantWorkspaceResolver({ tenants: {} });
  readonly apiKeys = new ApiKeyStore([]);
  private readonly snapshot: ControlSnapshot = emptyControlSnapshot();
  private follower: KvFollower | undefined;
  /** A rebuild is due (changes arrive in bursts: the initial load, `admin apply`; one rebuild each). */
  private rebuildDue: NodeJS.Immediate | undefined;
  private loadedListeners: Array<() => void> = [];
  private onProblem: (message: string, key: string) => void = () => {};
  private closed = false;
  private reported = new Set<string>();

  /** Follows the bucket; resolves once its current values are in force. */
  async follow(source: KvWatchSource, onProblem: (message: string, key: string) => void = () => {}): Promise<void> {
    if (this.follower || this.closed) throw new Error("the control plane is already followed");
    this.onProblem = onProblem;
    this.follower = new KvFollower("control plane", CONTROL_BUCKET, source, (change) => {
      const problem = applyControlChange(this.snapshot, change);
      if (problem) onProblem(problem, change.key);
      this.rebuildDue ??= setImmediate(() => this.rebuild());
    });
    await this.follower.start();
    await new Promise<void>((resolve) => {
      if (!this.rebuildDue) return resolve();
      this.loadedListeners.push(resolve);
    });
  }

  /** Stops following. Idempotent. */
  close(): void {
    this.closed = true;
    this.follower?.close();
    clearImmediate(this.rebuildDue);
    this.rebuildDue = undefined;
  }

  /** Tenants and key records now in force (for tests and `admin … list` through a gateway). */
  get tenantCount(): number {
    return this.snapshot.tenants.size;
  }

  private rebuild(): void {
    this.rebuildDue = undefined;
    // Each rebuild sees every record: a bad one is reported once, not on every later change.
    const problems = new Map<string, string>();
    const note = (message: string, key: string) => problems.set(`${key}\n${message}`, key);
    this.resolver.replace(tenantsFileOf(this.snapshot, note));
    this.apiKeys.replace(apiKeyRecordsOf(this.snapshot, note));
    for (const [text, key] of problems) if (!this.reported.has(text)) this.onProblem(text.slice(key.length + 1), key);
    this.reported = new Set(problems.keys());
    for (const listener of this.loadedListeners.splice(0)) listener();
  }
}

/** The tenants file the snapshot amounts to; a tenant whose records fail the file's checks is left out. */
export function tenantsFileOf(
  snapshot: ControlSnapshot,
  onProblem: (message: string, key: string) => void,
): TenantsFile {
  const tenants: Record<string, TenantConfig> = {};
  for (const [tenant, record] of snapshot.tenants) {
    const live: unknown[] = [];
    const deleted: string[] = [];
    for (const [id, workspace] of snapshot.workspaces.get(tenant) ?? []) {
      if (workspace.state === "deleted") deleted.push(id);
      else live.push(workspace.languages ? { id, languages: workspace.languages } : id);
    }
    try {
      const parsed = parseTenantsFile(
        {
          tenants: {
            [tenant]: { workspaces: live, limits: limitsOf(record), workspacePattern: record.workspacePattern },
          },
        },
        "control plane",
      );
      tenants[tenant] = { ...parsed.tenants[tenant]!, ...(deleted.length ? { deleted } : {}) };
    } catch (error) {
      onProblem(`${(error as Error).message}; tenant left out`, `tenants.${tenant}`);
    }
  }
  let defaults: TenantsFile["defaults"];
  try {
    defaults = parseTenantsFile({ tenants: {}, defaults: { limits: limitsOf(snapshot.defaults) } }).defaults;
  } catch (error) {
    onProblem(`${(error as Error).message}; defaults ignored`, "defaults");
  }
  return { tenants, defaults };
}

/** API-key records of existing tenants; a record that fails the key store's checks is left out. */
export function apiKeyRecordsOf(
  snapshot: ControlSnapshot,
  onProblem: (message: string, key: string) => void,
): ApiKeyRecord[] {
  const records: ApiKeyRecord[] = [];
  const hashes = new Set<string>();
  for (const [tenant, keys] of snapshot.apiKeys) {
    if (!snapshot.tenants.has(tenant)) continue;
    for (const [id, key] of keys) {
      const record = apiKeyRecordOf(tenant, id, key);
      try {
        // The store's own checks, one record at a time, so one bad record costs only itself.
        new ApiKeyStore([record]);
        const hash = record.sha256.toLowerCase();
        if (hashes.has(hash)) throw new Error("the same key hash is stored under another key id");
        hashes.add(hash);
        records.push(record);
      } catch (error) {
        onProblem(`${(error as Error).message}; key left out`, `keys.${tenant}.${id}`);
      }
    }
  }
  return records;
}

export function apiKeyRecordOf(tenant: string, id: string, key: ControlApiKey): ApiKeyRecord {
  return {
    id: `${tenant}/${id}`,
    sha256: key.sha256,
    tenant,
    scopes: key.scopes,
    ...(key.workspaces ? { workspaces: key.workspaces } : {}),
  };
}

function limitsOf(record: ControlTenant | undefined): unknown {
  return record?.limits;
}
