// The control plane's workspace records (KV `lspmesh-control`, @lspmesh/events controlPlane.ts) as
// a runner follows them: one KV watch per tenant it serves (`workspaces.<tenant>.*`: the only keys
// NATS lets it read), or one over every tenant's (`workspaces.>`) for a runner serving them all.
// nats-server 2.9 takes one filter per consumer, hence a watch per tenant rather than a key list.
// Each watch replays the current records, then delivers every change; one that ends (connection
// lost, bucket deleted) is opened again and replays. No bucket (the control plane is not used, or
// not yet): opened again every RETRY_MS; a runner works the same without it.
import {
  CONTROL_BUCKET,
  type ControlWorkspace,
  controlKeys,
  decodeJson,
  parseControlKey,
  probedKvWatch,
} from "@lspmesh/events";
import type { Kvm, KvWatchEntry } from "@nats-io/kv";

/** One workspace record: live, or deleted (a tombstone, or its key deleted or purged). */
export interface WorkspaceRecord {
  tenant: string;
  workspace: string;
  deleted: boolean;
  /** Live, and its folder is to be made when absent (`workspaces add --create`). */
  createFolder?: boolean;
  /** Deleted, and its folder is to be removed (`workspaces remove --remove-folder`). */
  removeFolder?: boolean;
}

export interface ControlPlaneWatchOptions {
  kvm: Kvm;
  /** Tenants served (one watch each); undefined: every tenant (one watch). */
  tenants?: readonly string[];
  onRecord: (record: WorkspaceRecord) => void;
  log: (entry: Record<string, unknown>) => void;
  /** Pause before opening a watch again (absent bucket, watch ended), ms (default 2 000). */
  retryMs?: number;
}

const RETRY_MS = 2_000;
/** Pause before trying again a watch NATS refused (permissions), ms (default 60 000). */
const REFUSED_RETRY_MS = 60_000;

interface Stoppable {
  stop(): void;
}

export class ControlPlaneWatch {
  private readonly watches = new Set<Stoppable>();
  private readonly stopped = new AbortController();
  private readonly running: Promise<void>[];

  constructor(private readonly options: ControlPlaneWatchOptions) {
    const filters = options.tenants ? options.tenants.map(controlKeys.tenantWorkspaces) : ["workspaces.>"];
    this.running = filters.map((filter) => this.follow(filter));
  }

  /** Ends the watches under way; each is opened again and replays (after a reconnect: changes may have been missed). */
  rewatch(): void {
    for (const watch of this.watches) watch.stop();
  }

  /** Stops following. Idempotent. */
  async close(): Promise<void> {
    this.stopped.abort();
    this.rewatch();
    await Promise.all(this.running);
  }

  private async follow(filter: string): Promise<void> {
    const { log } = this.options;
    let said: "absent" | "refused" | undefined;
    while (!this.stopped.signal.aborted) {
      const watch = await this.open(filter).catch((error: unknown) => {
        // Refused: the runner's identity predates these permissions (said once; tried less often).
        const refused = /permissions violation/i.test(String(error));
        if (said !== (refused ? "refused" : "absent"))
          log({
            level: refused ? "warn" : "debug",
            msg: refused
              ? "control plane refused to this runner's NATS identity: deleted workspaces are not cleaned up; regenerate the NATS authorization (lspmesh nats-auth) or mint the pool's credential again (lspmesh admin creds runner)"
              : "control plane not followed yet (no bucket, or NATS away); trying again",
            bucket: CONTROL_BUCKET,
            filter,
            error: String(error),
          });
        said = refused ? "refused" : "absent";
        return undefined;
      });
      if (!watch) {
        await this.pause(said === "refused" ? REFUSED_RETRY_MS : undefined);
        continue;
      }
      if (said) log({ level: "info", msg: "control plane followed", bucket: CONTROL_BUCKET, filter });
      said = undefined;
      this.watches.add(watch);
      if (this.stopped.signal.aborted) watch.stop();
      try {
        for await (const entry of watch) this.deliver(entry);
      } catch (error) {
        log({ level: "warn", msg: "control plane watch failed; watching again", filter, error: String(error) });
      } finally {
        this.watches.delete(watch);
      }
      await this.pause();
    }
  }

  private async open(filter: string) {
    const kv = await this.options.kvm.open(CONTROL_BUCKET);
    await kv.status(); // open() does not check that the bucket exists
    // Stopped when its consumer is lost with a NATS node (kvWatchProbe.ts), then opened again.
    return probedKvWatch(kv, { key: filter });
  }

  private deliver(entry: KvWatchEntry): void {
    const key = parseControlKey(entry.key);
    if (key?.kind !== "workspace") return;
    if (this.options.tenants && !this.options.tenants.includes(key.tenant)) return;
    let record: ControlWorkspace | undefined;
    if (entry.operation === "PUT") {
      try {
        record = decodeJson<ControlWorkspace>(entry.value);
      } catch {
        return; // not JSON: the gateways report it; nothing to do here
      }
    }
    const deleted = record === undefined || record.state === "deleted";
    try {
      this.options.onRecord({
        tenant: key.tenant,
        workspace: key.workspace,
        deleted,
        ...(!deleted && record?.create === true ? { createFolder: true } : {}),
        ...(deleted && record?.removeFolder === true ? { removeFolder: true } : {}),
      });
    } catch (error) {
      this.options.log({
        level: "warn",
        msg: "control plane record not applied",
        key: entry.key,
        error: String(error),
      });
    }
  }

  /** Waits ms (default: retryMs), or less when closed. */
  private pause(ms = this.options.retryMs ?? RETRY_MS): Promise<void> {
    const signal = this.stopped.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
