// Which (tenant, workspace) a tool call addresses. Behind an interface so that token-based
// tenancy (DESIGN.md 4) can replace the single-machine resolver without touching the tools.
import type { AuthInfo } from "@modelcontextprotocol/server";
import { GatewayError } from "./errors.js";

/** Tenant and workspace ids (DESIGN.md 3.1): safe as a path segment and a NATS token. */
export const ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export interface WorkspaceTarget {
  readonly tenant: string;
  readonly workspace: string;
}

/** What the gateway knows about the caller of one tool call. */
export interface Caller {
  /** Verified token information, once authentication exists; absent in single-machine mode. */
  readonly authInfo?: AuthInfo;
}

export interface WorkspaceResolver {
  /**
   * The workspace a call addresses. `requested` is the tool's `workspace` argument (undefined when
   * omitted). Throws a GatewayError (NOT_FOUND for unknown or invisible workspaces, alike).
   */
  resolve(requested: string | undefined, caller: Caller): Promise<WorkspaceTarget>;
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
}
