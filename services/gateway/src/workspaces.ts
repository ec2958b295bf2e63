// Which (tenant, workspace) a tool call addresses, and which workspaces a caller may see. Behind
// an interface so single-machine mode and token-based tenancy share the tools unchanged.

import { ID_PATTERN } from "@lspmesh/proto";
import type { Principal } from "./auth/principal.js";
import { GatewayError } from "./errors.js";

export interface WorkspaceTarget {
  readonly tenant: string;
  readonly workspace: string;
}

/** What the gateway knows about the caller of one tool call. */
export interface Caller {
  /** The verified caller (always set behind the HTTP layer; a fixed one in single-machine mode). */
  readonly principal?: Principal | undefined;
}

export interface WorkspaceResolver {
  /**
   * The workspace a call addresses. `requested` is the tool's `workspace` argument (undefined when
   * omitted). Throws a GatewayError: NOT_FOUND for unknown workspaces and for workspaces the caller
   * may not see, worded identically, so another tenant's workspace cannot be told from a missing one.
   */
  resolve(requested: string | undefined, caller: Caller): Promise<WorkspaceTarget>;
  /** Every workspace this caller may see, sorted (workspace_status, search_symbols). */
  visible(caller: Caller): Promise<WorkspaceTarget[]>;
  /** Languages configured for a workspace (workspace-wide calls); undefined = whatever the runners serve. */
  languagesOf(target: WorkspaceTarget): readonly string[] | undefined;
}

/** The NOT_FOUND every invisible or unknown workspace gets, whoever owns it. */
export function unknownWorkspace(requested: string): GatewayError {
  return new GatewayError(
    "NOT_FOUND",
    `unknown workspace '${requested}'; call workspace_status without a workspace to list yours`,
  );
}

/** Workspace argument omitted while the caller has several (or none). */
export function workspaceNeeded(visible: readonly WorkspaceTarget[]): GatewayError {
  if (visible.length === 0)
    return new GatewayError("NOT_FOUND", "this caller has no workspaces; ask the operator to add one for your tenant");
  const names = visible.slice(0, 20).map((target) => target.workspace);
  const more = visible.length > names.length ? `, … (${visible.length} in all)` : "";
  return new GatewayError("INVALID_ARGUMENT", `give workspace: one of ${names.join(", ")}${more}`);
}

/** Single-machine mode: one tenant serving one workspace to every caller. */
export class StaticWorkspaceResolver implements WorkspaceResolver {
  readonly tenant: string;
  readonly workspace: string;

  constructor(options: { tenant: string; workspace: string }) {
    for (const [name, id] of [
      ["tenant", options.tenant],
      ["workspace", options.workspace],
    ] as const) {
      if (!ID_PATTERN.test(id)) throw new Error(`invalid ${name} id '${id}': must match ${ID_PATTERN.source}`);
    }
    this.tenant = options.tenant;
    this.workspace = options.workspace;
  }

  async resolve(requested: string | undefined): Promise<WorkspaceTarget> {
    if (requested !== undefined && requested !== this.workspace) {
      throw new GatewayError(
        "NOT_FOUND",
        `unknown workspace '${requested}'; this server serves '${this.workspace}' (omit workspace to use it)`,
      );
    }
    return { tenant: this.tenant, workspace: this.workspace };
  }

  async visible(): Promise<WorkspaceTarget[]> {
    return [{ tenant: this.tenant, workspace: this.workspace }];
  }

  languagesOf(): undefined {
    return undefined;
  }
}
