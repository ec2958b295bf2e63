// Workspaces' last uses (KV WORKSPACE_USAGE_BUCKET): gateways put them, the idle-TTL expiry reads
// them all at once. One value per workspace (history 1).
import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { WORKSPACE_USAGE_BUCKET, type WorkspaceUsage } from "./controlPlane.js";

export class WorkspaceUsageStore {
  private constructor(private readonly kv: KV) {}

  /** Opens the bucket, creating it when absent. */
  static async open(nc: NatsConnection): Promise<WorkspaceUsageStore> {
    const kvm = new Kvm(nc);
    const kv = await kvm.create(WORKSPACE_USAGE_BUCKET, { history: 1 }).catch(() => kvm.open(WORKSPACE_USAGE_BUCKET));
    return new WorkspaceUsageStore(kv);
  }

  async put(key: string, value: string): Promise<void> {
    await this.kv.put(key, value);
  }

  /** Every workspace key's last use, ms since the epoch (unreadable values left out). */
  async lastUses(): Promise<Map<string, number>> {
    const uses = new Map<string, number>();
    const status = await this.kv.status();
    if (status.values === 0) return uses;
    const watch = await this.kv.watch({ key: ">" });
    try {
      for await (const entry of watch) {
        if (entry.operation === "PUT") {
          try {
            const at = (entry.json() as WorkspaceUsage).at;
            if (typeof at === "number") uses.set(entry.key, at);
          } catch {
            // not ours: ignored
          }
        } else uses.delete(entry.key);
        if ((entry.delta ?? 0) === 0) break;
      }
    } finally {
      watch.stop();
    }
    return uses;
  }
}
