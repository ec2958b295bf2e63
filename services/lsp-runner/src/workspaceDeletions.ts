// Deleted workspaces (docs/deploy.md, "Onboarding"): a runner on NATS follows its tenants'
// workspace records in the control plane (KV `lspmesh-control`) and, when one becomes a tombstone
// (`lspmesh admin workspaces remove`) or its key is deleted, lets go of everything it holds of
// that workspace: its language servers and file watches, its symbol indexing and stored index
// (the keys in `lspmesh-symbols-<tenant>`), and the diagnostics it published (a `deleted` message
// per file). A tombstone in the replay at start cleans what a previous life left (a stored index).
// Until the workspace is added again the runner answers it NOT_FOUND itself: a call under way
// when it was deleted must not start its server or its index again.
import type { WorkspaceRef } from "./engine/answers.js";
import type { WorkspaceRecord } from "./events/controlPlaneWatch.js";
import type { Closeable, RunnerEventBus } from "./events/eventBus.js";
import type { ReleasedWorkspace } from "./runnerCore.js";
import type { WorkspaceFolders } from "./workspace/workspaceFolders.js";
import { deletedWorkspace, type WorkspaceLocator } from "./workspace/workspaceLocator.js";

export interface WorkspaceDeletionsOptions {
  bus: RunnerEventBus;
  /** Tenants served (only their records are followed); undefined: every tenant. */
  tenants?: readonly string[];
  /** Stops what this process holds of the workspace (a runner core's, or a tenant worker's). */
  release: (ref: WorkspaceRef) => Promise<ReleasedWorkspace>;
  log: (entry: Record<string, unknown>) => void;
  /** Makes and removes workspace folders when a record asks (`--create`, `--remove-folder`); absent: never. */
  folders?: WorkspaceFolders;
  /** Told of every record as it is seen, before anything is released (tenant workers keep their own list). */
  onRecord?: (tenant: string, workspace: string, deleted: boolean) => void;
}

export class WorkspaceDeletions {
  private readonly deleted = new Set<string>();
  /** Clean-ups under way, one chain per workspace (a record replayed again waits for the last). */
  private readonly cleaning = new Map<string, Promise<void>>();
  private readonly following: Closeable;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly options: WorkspaceDeletionsOptions,
    follow: NonNullable<RunnerEventBus["followWorkspaceRecords"]>,
  ) {
    this.following = follow(options.tenants, (record) => this.apply(record));
  }

  /** Follows the control plane when the bus has one (NATS); undefined in single-machine mode. */
  static follow(options: WorkspaceDeletionsOptions): WorkspaceDeletions | undefined {
    const { bus } = options;
    if (!bus.followWorkspaceRecords) return undefined;
    return new WorkspaceDeletions(options, bus.followWorkspaceRecords.bind(bus));
  }

  /** The workspace is a tombstone (or its record was deleted) as last seen. */
  isDeleted(tenant: string, workspace: string): boolean {
    return this.deleted.has(`${tenant}/${workspace}`);
  }

  /** The tenant's workspaces deleted now. */
  deletedOf(tenant: string): string[] {
    const prefix = `${tenant}/`;
    return [...this.deleted].filter((id) => id.startsWith(prefix)).map((id) => id.slice(prefix.length));
  }

  /** Resolves once every clean-up started so far is done (tests). */
  async settled(): Promise<void> {
    while (this.cleaning.size > 0) await Promise.all(this.cleaning.values());
  }

  /** Stops following; waits for the clean-ups under way. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.following.close();
      await this.settled();
    })();
    return this.closing;
  }

  private apply({ tenant, workspace, deleted, createFolder, removeFolder }: WorkspaceRecord): void {
    const id = `${tenant}/${workspace}`;
    this.options.onRecord?.(tenant, workspace, deleted);
    if (!deleted) {
      this.deleted.delete(id);
      if (createFolder && this.options.folders && !this.closing)
        this.chain(id, () => this.createFolder(tenant, workspace));
      return;
    }
    this.deleted.add(id);
    if (this.closing) return;
    this.chain(id, async () => {
      if (!this.deleted.has(id)) return;
      await this.clean({ tenant, workspace });
      if (removeFolder && this.deleted.has(id)) await this.removeFolder(tenant, workspace);
    });
  }

  /** Runs `step` after the workspace's previous steps (one chain per workspace, in record order). */
  private chain(id: string, step: () => Promise<void>): void {
    const previous = this.cleaning.get(id) ?? Promise.resolve();
    const next: Promise<void> = previous.then(step).finally(() => {
      if (this.cleaning.get(id) === next) this.cleaning.delete(id);
    });
    this.cleaning.set(id, next);
  }

  private async createFolder(tenant: string, workspace: string): Promise<void> {
    try {
      if ((await this.options.folders?.create(tenant, workspace)) === "created")
        this.options.log({ level: "info", msg: "workspace folder created", tenant, workspace });
    } catch (error) {
      this.options.log({ level: "warn", msg: "workspace folder not created", tenant, workspace, error: String(error) });
    }
  }

  private async removeFolder(tenant: string, workspace: string): Promise<void> {
    try {
      if ((await this.options.folders?.remove(tenant, workspace)) === "removed")
        this.options.log({ level: "info", msg: "deleted workspace's folder removed", tenant, workspace });
    } catch (error) {
      this.options.log({
        level: "warn",
        msg: "deleted workspace's folder not removed",
        tenant,
        workspace,
        error: String(error),
      });
    }
  }

  private async clean(ref: WorkspaceRef): Promise<void> {
    const { bus, log } = this.options;
    try {
      const released = await this.options.release(ref);
      // Deleted after its writes stopped; a shared index may have been written by another runner too.
      const indexKeys =
        (await bus.deleteWorkspaceIndex?.(ref.tenant, ref.workspace, { evenWithoutMeta: released.indexed })) ?? 0;
      const diagnostics = bus.clearWorkspaceDiagnostics?.(ref.tenant, ref.workspace) ?? 0;
      if (released.servers > 0 || released.indexed || indexKeys > 0 || diagnostics > 0)
        log({
          level: "info",
          msg: "deleted workspace cleaned up",
          tenant: ref.tenant,
          workspace: ref.workspace,
          servers: released.servers,
          indexKeys,
          diagnosticsCleared: diagnostics,
        });
    } catch (error) {
      // Done again when the control plane is replayed (a reconnect, a restart).
      log({
        level: "warn",
        msg: "deleted workspace not completely cleaned up",
        tenant: ref.tenant,
        workspace: ref.workspace,
        error: String(error),
      });
    }
  }
}

/** A locator that answers deleted workspaces NOT_FOUND (saying so) before asking `inner`. */
export class DeletedWorkspaceLocator implements WorkspaceLocator {
  constructor(
    private readonly inner: WorkspaceLocator,
    private readonly isDeleted: (tenant: string, workspace: string) => boolean,
  ) {}

  locate(tenant: string, workspace: string): Promise<string> {
    if (this.isDeleted(tenant, workspace)) return Promise.reject(deletedWorkspace(tenant, workspace));
    return this.inner.locate(tenant, workspace);
  }
}
