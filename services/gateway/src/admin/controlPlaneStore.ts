// The control-plane bucket as `lspmesh admin` reads and writes it: every current value at once,
// and puts and deletes of single keys. Needs an identity allowed to write the bucket (`admin`).
import { CONTROL_BUCKET, createKvBucket, kvCurrentValues } from "@lspmesh/events";
import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";

/** Revisions kept per key (the last few changes, for `nats kv history` when auditing; default 5). */
const CONTROL_HISTORY = 5;

export class ControlPlaneStore {
  private constructor(private readonly kv: KV) {}

  /** Opens the bucket, creating it when absent with `replicas` copies (default 1). */
  static async open(nc: NatsConnection, options: { replicas?: number | undefined } = {}): Promise<ControlPlaneStore> {
    const kvm = new Kvm(nc);
    const kv = await createKvBucket(kvm, CONTROL_BUCKET, {
      history: CONTROL_HISTORY,
      replicas: options.replicas ?? 1,
    }).catch(() => kvm.open(CONTROL_BUCKET));
    return new ControlPlaneStore(kv);
  }

  /** Every key's current value (raw JSON text), deleted keys left out; one watch, not a get per key. */
  async values(): Promise<Map<string, string>> {
    const decoder = new TextDecoder();
    return new Map([...(await kvCurrentValues(this.kv))].map(([key, value]) => [key, decoder.decode(value)]));
  }

  async put(key: string, value: string): Promise<void> {
    await this.kv.put(key, value);
  }

  async delete(key: string): Promise<void> {
    await this.kv.delete(key);
  }
}
