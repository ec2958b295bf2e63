// The tenants file: which workspaces each tenant has, and each tenant's call limits. The gateway
// cannot see the workspace volume, so this file is the one source of "which workspaces exist"
// (docs/gateway.md). A token's workspace list can only narrow it.
import { readFileSync } from "node:fs";
import { ID_PATTERN } from "@lspmesh/proto";
import { hasScope } from "../auth/principal.js";
import { GatewayError } from "../errors.js";
import type { TenantLimits } from "../limits/tenantLimiter.js";
import {
  type Caller,
  unknownWorkspace,
  type WorkspaceResolver,
  type WorkspaceTarget,
  workspaceNeeded,
} from "../workspaces.js";

export interface WorkspaceConfig {
  id: string;
  /** Language ids of the workspace, for workspace-wide calls; absent = whatever the runners serve. */
  languages?: string[];
}

export interface TenantConfig {
  workspaces: WorkspaceConfig[];
  limits?: Partial<TenantLimits>;
  /** Workspaces deleted through the control plane: a call for one is told so (not a file field). */
  deleted?: string[];
}

export interface TenantsFile {
  tenants: Record<string, TenantConfig>;
  /** Limits for tenants that set none. */
  defaults?: { limits?: Partial<TenantLimits> };
}

/** Validates a parsed tenants file; workspaces may be given as plain ids. Throws naming the fix. */
export function parseTenantsFile(raw: unknown, source = "tenants file"): TenantsFile {
  const file = raw as { tenants?: Record<string, unknown>; defaults?: { limits?: unknown } } | null;
  if (!file || typeof file !== "object" || !file.tenants || typeof file.tenants !== "object")
    throw new Error(`${source}: needs a "tenants" object, e.g. {"tenants": {"acme": {"workspaces": ["web"]}}}`);
  const tenants: Record<string, TenantConfig> = {};
  for (const [tenant, value] of Object.entries(file.tenants)) {
    if (!ID_PATTERN.test(tenant)) throw new Error(`${source}: '${tenant}' is not a tenant id (a-z, 0-9, '_' or '-')`);
    const config = value as { workspaces?: unknown[]; limits?: unknown } | null;
    if (!config || !Array.isArray(config.workspaces))
      throw new Error(`${source}: tenant '${tenant}' needs a "workspaces" list`);
    const workspaces = config.workspaces.map((entry): WorkspaceConfig => {
      const workspace = typeof entry === "string" ? { id: entry } : (entry as WorkspaceConfig);
      if (!workspace || typeof workspace.id !== "string" || !ID_PATTERN.test(workspace.id))
        throw new Error(
          `${source}: tenant '${tenant}' lists a workspace that is not a workspace id: ${JSON.stringify(entry)}`,
        );
      if (
        workspace.languages !== undefined &&
        (!Array.isArray(workspace.languages) || !workspace.languages.every((l) => typeof l === "string"))
      )
        throw new Error(`${source}: workspace '${tenant}/${workspace.id}' languages must be a list of language ids`);
      return workspace.languages ? { id: workspace.id, languages: workspace.languages } : { id: workspace.id };
    });
    tenants[tenant] = { workspaces, limits: limitsFrom(config.limits, `${source}: tenant '${tenant}'`) };
  }
  return { tenants, defaults: { limits: limitsFrom(file.defaults?.limits, `${source}: defaults`) } };
}

function limitsFrom(raw: unknown, where: string): Partial<TenantLimits> | undefined {
  if (raw === undefined) return undefined;
  const limits = raw as Record<string, unknown>;
  const out: Partial<TenantLimits> = {};
  for (const key of ["concurrentCalls", "callsPerSecond"] as const) {
    const value = limits?.[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !(value > 0)) throw new Error(`${where}: limits.${key} must be a positive number`);
    out[key] = value;
  }
  return out;
}

export function readTenantsFile(path: string): TenantsFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`cannot read the tenants file ${path}: ${(error as Error).message}`);
  }
  return parseTenantsFile(raw, `tenants file ${path}`);
}

/** Workspaces from the tenants file, narrowed by the caller's token. */
export class TenantWorkspaceResolver implements WorkspaceResolver {
  constructor(private file: TenantsFile) {}

  /** Swaps in a changed tenants file (validated by parseTenantsFile/readTenantsFile). */
  replace(file: TenantsFile): void {
    this.file = file;
  }

  async resolve(requested: string | undefined, caller: Caller): Promise<WorkspaceTarget> {
    const visible = await this.visible(caller);
    if (requested === undefined) {
      if (visible.length === 1) return visible[0]!;
      throw workspaceNeeded(visible);
    }
    const found = visible.find((target) => target.workspace === requested);
    if (!found) throw this.deletedWorkspace(requested, caller) ?? unknownWorkspace(requested);
    return found;
  }

  async visible(caller: Caller): Promise<WorkspaceTarget[]> {
    const principal = caller.principal;
    if (!principal) throw new GatewayError("FORBIDDEN", "this call carries no verified caller; send a bearer token");
    if (!hasScope(principal, "lsp:read")) return [];
    const tenant = this.file.tenants[principal.tenant];
    if (!tenant) return [];
    const allowed = principal.workspaces ? new Set(principal.workspaces) : undefined;
    return tenant.workspaces
      .filter((workspace) => !allowed || allowed.has(workspace.id))
      .map((workspace) => ({ tenant: principal.tenant, workspace: workspace.id }))
      .sort((a, b) => a.workspace.localeCompare(b.workspace));
  }

  /** NOT_FOUND saying the caller's own workspace was deleted (their tenant's, so nothing leaks). */
  private deletedWorkspace(requested: string, caller: Caller): GatewayError | undefined {
    const principal = caller.principal;
    if (!principal || !this.file.tenants[principal.tenant]?.deleted?.includes(requested)) return undefined;
    if (principal.workspaces && !principal.workspaces.includes(requested)) return undefined;
    return new GatewayError(
      "NOT_FOUND",
      `workspace '${requested}' was deleted; ask the operator to add it again (lspmesh admin workspaces add ${principal.tenant} ${requested})`,
    );
  }

  languagesOf(target: WorkspaceTarget): readonly string[] | undefined {
    return this.file.tenants[target.tenant]?.workspaces.find((w) => w.id === target.workspace)?.languages;
  }

  limitsOf(tenant: string): Partial<TenantLimits> {
    return { ...this.file.defaults?.limits, ...this.file.tenants[tenant]?.limits };
  }
}
