// Workspaces' last uses (KV WORKSPACE_USAGE_BUCKET): gateways put them, the idle-TTL expiry reads
// them all at once. One value per workspace (history 1).
import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { WORKSPACE_USAGE_BUCKET, type WorkspaceUsage } from "./controlPlane.js";
import { createKvBucket } from "./kvBucket.js";
import { kvCurrentValues } from "./kvCurrentValues.js";

export class WorkspaceUsageStore {
  private constructor(private readonly kv: KV) {}

  /** Opens the bucket, creating it when absent with `replicas` copies (default 1). */
  static async open(nc: NatsConnection, options: { replicas?: number } = {}): Promise<WorkspaceUsageStore> {
    const kvm = new Kvm(nc);
    const kv = await createKvBucket(kvm, WORKSPACE_USAGE_BUCKET, { history: 1, replicas: options.replicas ?? 1 }).catch(
      () => kvm.open(WORKSPACE_USAGE_BUCKET),
    );
    return new WorkspaceUsageStore(kv);
  }

  async put(key: string, value: string): Promise<void> {
    await this.kv.put(key, value);
  }

  /** Every workspace key's last use, ms since the epoch (unreadable values left out). */
  async lastUses(): Promise<Map<string, number>> {
    const uses = new Map<string, number>();
    for (const [key, value] of await kvCurrentValues(this.kv)) {
      try {
        const at = (JSON.parse(new TextDecoder().decode(value)) as WorkspaceUsage).at;
        if (typeof at === "number") uses.set(key, at);
      } catch {
        // not ours: ignored
      }
    }
    return uses;
  }
}
