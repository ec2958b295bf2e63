import { join } from "node:path";
import { RunnerError } from "../errors.js";
import { isDirectory } from "./metadata.js";
import { assertWorkspaceId } from "./workspaceIds.js";

/** Finds the directory of a (tenant, workspace) pair on this runner's volume. */
export interface WorkspaceLocator {
  /** Absolute directory of the workspace; throws NOT_FOUND when the runner has no such workspace. */
  locate(tenant: string, workspace: string): Promise<string>;
}

export function unknownWorkspace(workspace: string): RunnerError {
  // Another tenant's workspace is answered exactly like a missing one.
  return new RunnerError("NOT_FOUND", `unknown workspace '${workspace}': check the workspace id`);
}

/** NOT_FOUND for a workspace deleted in the control plane (the caller's own tenant's: nothing leaks). */
export function deletedWorkspace(tenant: string, workspace: string): RunnerError {
  return new RunnerError(
    "NOT_FOUND",
    `workspace '${workspace}' was deleted; ask the operator to add it again (lspmesh admin workspaces add ${tenant} ${workspace})`,
  );
}

/** `<root>/<tenant>/<workspace>` (docs/architecture.md, Identities), for runners serving a mounted volume. */
export class VolumeWorkspaceLocator implements WorkspaceLocator {
  constructor(private readonly root: string) {}

  async locate(tenant: string, workspace: string): Promise<string> {
    assertWorkspaceId("tenant", tenant);
    assertWorkspaceId("workspace", workspace);
    const dir = join(this.root, tenant, workspace);
    // Asked on every request: synchronously, like the other metadata of the query path.
    if (!isDirectory(dir)) throw unknownWorkspace(workspace);
    return dir;
  }
}

/** One directory served as one (tenant, workspace): single-machine mode. */
export class SingleWorkspaceLocator implements WorkspaceLocator {
  constructor(
    private readonly dir: string,
    private readonly tenant: string,
    private readonly workspace: string,
  ) {}

  async locate(tenant: string, workspace: string): Promise<string> {
    assertWorkspaceId("tenant", tenant);
    assertWorkspaceId("workspace", workspace);
    if (tenant !== this.tenant || workspace !== this.workspace) throw unknownWorkspace(workspace);
    return this.dir;
  }
}
