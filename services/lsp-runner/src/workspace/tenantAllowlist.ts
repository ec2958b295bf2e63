import { unknownWorkspace, type WorkspaceLocator } from "./workspaceLocator.js";

/**
 * A runner dedicated to some tenants (registry tenant allowlist, docs/security.md): other tenants'
 * workspaces are answered exactly like missing ones.
 */
export class TenantAllowlistLocator implements WorkspaceLocator {
  private readonly tenants: ReadonlySet<string>;

  constructor(
    private readonly inner: WorkspaceLocator,
    tenants: readonly string[],
  ) {
    this.tenants = new Set(tenants);
  }

  locate(tenant: string, workspace: string): Promise<string> {
    if (!this.tenants.has(tenant)) {
      return Promise.reject(unknownWorkspace(workspace));
    }
    return this.inner.locate(tenant, workspace);
  }
}
