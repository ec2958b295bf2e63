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
  /**
   * Any workspace id matching this pattern (`*` any characters, e.g. "task-*") is the tenant's too,
   * without being listed: per-task and per-PR workspaces made on the volume by their writer.
   */
  workspacePattern?: string;
  /** Workspaces deleted through the control plane: a call for one is told so (not a file field). */
  deleted?: string[];
}

export interface TenantsFile {
  tenants: Record<string, TenantConfig>;
  /** Limits for tenants that set none. */
  defaults?: { limits?: Partial<TenantLimits> };
}

/** A workspace-id pattern: ID_PATTERN's characters and at least one `*`, at most 63 long. */
const WORKSPACE_PATTERN = /^(?=[^*]*\*)[a-z0-9*][a-z0-9_*-]{0,62}$/;

/** Whether `workspace` matches a workspacePattern (`*`: any run of characters, possibly none). */
export function matchesWorkspacePattern(pattern: string, workspace: string): boolean {
  // A validated pattern holds only a-z 0-9 _ - and *: nothing else a RegExp reads specially.
  const regex = new RegExp(`^${pattern.split("*").join(".*")}$`);
  return ID_PATTERN.test(workspace) && regex.test(workspace);
}

/** Validates a parsed tenants file; workspaces may be given as plain ids. Throws naming the fix. */
export function parseTenantsFile(raw: unknown, source = "tenants file"): TenantsFile {
  const file = raw as { tenants?: Record<string, unknown>; defaults?: { limits?: unknown } } | null;
  if (!file || typeof file !== "object" || !file.tenants || typeof file.tenants !== "object")
    throw new Error(`${source}: needs a "tenants" object, e.g. {"tenants": {"acme": {"workspaces": ["web"]}}}`);
  const tenants: Record<string, TenantConfig> = {};
  for (const [tenant, value] of Object.entries(file.tenants)) {
    if (!ID_PATTERN.test(tenant)) throw new Error(`${source}: '${tenant}' is not a tenant id (a-z, 0-9, '_' or '-')`);
    const config = value as { workspaces?: unknown[]; limits?: unknown; workspacePattern?: unknown } | null;
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
    const pattern = config.workspacePattern;
    if (pattern !== undefined && (typeof pattern !== "string" || !WORKSPACE_PATTERN.test(pattern)))
      throw new Error(
        `${source}: tenant '${tenant}' workspacePattern must be a workspace id with '*' wildcards, e.g. "task-*" (got ${JSON.stringify(pattern)})`,
      );
    tenants[tenant] = {
      workspaces,
      limits: limitsFrom(config.limits, `${source}: tenant '${tenant}'`),
      ...(pattern ? { workspacePattern: pattern } : {}),
    };
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
    if (found) return found;
    const deleted = this.deletedWorkspace(requested, caller);
    if (deleted) throw deleted;
    const matched = this.patternWorkspace(requested, caller);
    if (!matched) throw unknownWorkspace(requested);
    return matched;
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

  /** A workspace of the caller's tenant by its pattern (not listed), if its token allows it. */
  private patternWorkspace(requested: string, caller: Caller): WorkspaceTarget | undefined {
    const principal = caller.principal;
    const pattern = principal && this.file.tenants[principal.tenant]?.workspacePattern;
    if (!principal || !pattern || !hasScope(principal, "lsp:read")) return undefined;
    if (principal.workspaces && !principal.workspaces.includes(requested)) return undefined;
    return matchesWorkspacePattern(pattern, requested) ? { tenant: principal.tenant, workspace: requested } : undefined;
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
