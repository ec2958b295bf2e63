// Symbol indexes on NATS JetStream: one KV bucket per tenant (symbolIndex.ts), history 1 (the
// latest value of each key is the index; a deleted file's key is purged), created by the runner
// that first indexes one of the tenant's workspaces. Gateways only open and watch buckets.
import { type KV, Kvm, KvWatchInclude } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { retryTransient } from "./jetstreamRetry.js";
import { createKvBucket } from "./kvBucket.js";
import { decodeJson, encodeJson } from "./payloads.js";
import {
  parseSymbolIndexKey,
  type SymbolIndexFileEntry,
  type SymbolIndexMeta,
  type SymbolIndexUpdate,
  symbolIndexBucket,
  symbolIndexFileKey,
  symbolIndexMetaKey,
  symbolIndexWorkspaceFilter,
  tenantOfSymbolIndexBucket,
} from "./symbolIndex.js";
import type { IndexFollower, StoredWorkspaceIndex, SymbolIndexStore } from "./symbolIndexStore.js";

export interface NatsSymbolIndexOptions {
  /** Bytes one tenant's bucket may hold (default 256 MiB; -1 = no limit). Writes beyond it fail and are logged. */
  maxBytesPerTenant?: number;
  /** Replicas of each bucket made (default 1; LSPMESH_JETSTREAM_REPLICAS). */
  replicas?: number;
}

export const DEFAULT_INDEX_MAX_BYTES_PER_TENANT = 256 * 1024 * 1024;

/** Parallel reads when a runner loads a stored workspace index. */
const READ_CONCURRENCY = 32;

export class NatsSymbolIndexStore implements SymbolIndexStore {
  private readonly kvm: Kvm;
  private readonly buckets = new Map<string, Promise<KV>>();

  constructor(
    nc: NatsConnection,
    private readonly options: NatsSymbolIndexOptions = {},
  ) {
    this.kvm = new Kvm(nc);
  }

  async read(tenant: string, workspace: string): Promise<StoredWorkspaceIndex> {
    const kv = await this.existing(tenant);
    const stored: StoredWorkspaceIndex = { files: new Map() };
    if (!kv) return stored;
    const keys: string[] = [];
    for await (const key of await kv.keys(symbolIndexWorkspaceFilter(workspace))) keys.push(key);
    for (let at = 0; at < keys.length; at += READ_CONCURRENCY) {
      await Promise.all(
        keys.slice(at, at + READ_CONCURRENCY).map(async (key) => {
          const entry = await kv.get(key);
          if (entry?.operation !== "PUT") return;
          const parsed = parseSymbolIndexKey(key);
          if (parsed?.kind === "meta") stored.meta = decodeJson<SymbolIndexMeta>(entry.value);
          else if (parsed?.kind === "file")
            stored.files.set(parsed.file, decodeJson<SymbolIndexFileEntry>(entry.value));
        }),
      );
    }
    return stored;
  }

  // Writes ride through a NATS node's loss: retried while the bucket's stream elects a leader.
  async putFile(tenant: string, workspace: string, entry: SymbolIndexFileEntry): Promise<void> {
    const kv = await this.writable(tenant);
    await retryTransient(() => kv.put(symbolIndexFileKey(workspace, entry.file), encodeJson(entry)));
  }

  async deleteFile(tenant: string, workspace: string, file: string): Promise<void> {
    const kv = await this.writable(tenant);
    await retryTransient(() => kv.purge(symbolIndexFileKey(workspace, file)));
  }

  async putMeta(meta: SymbolIndexMeta): Promise<void> {
    const kv = await this.writable(meta.tenant);
    await retryTransient(() => kv.put(symbolIndexMetaKey(meta.workspace), encodeJson(meta)));
  }

  async ownedBy(runner: string, tenants?: readonly string[]): Promise<Array<{ tenant: string; workspace: string }>> {
    const owned: Array<{ tenant: string; workspace: string }> = [];
    const candidates: string[] = [];
    if (tenants) candidates.push(...tenants);
    else {
      for await (const status of this.kvm.list()) {
        const tenant = tenantOfSymbolIndexBucket(status.bucket);
        if (tenant) candidates.push(tenant);
      }
    }
    for (const tenant of candidates) {
      const kv = await this.existing(tenant);
      if (!kv) continue;
      for await (const key of await kv.keys("*.meta")) {
        const entry = await kv.get(key);
        if (entry?.operation !== "PUT") continue;
        const meta = decodeJson<SymbolIndexMeta>(entry.value);
        if (meta.runner === runner) owned.push({ tenant, workspace: meta.workspace });
      }
    }
    return owned;
  }

  async follow(
    tenant: string,
    onUpdate: (update: SymbolIndexUpdate) => void,
    onEnd?: () => void,
  ): Promise<IndexFollower | undefined> {
    const kv = await this.existing(tenant);
    if (!kv) return undefined;
    const empty = (await kv.status()).values === 0;
    const watch = await kv.watch({ key: ">", include: KvWatchInclude.LastValue });
    let replayed: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      replayed = resolve;
    });
    if (empty) replayed();
    let stopped = false;
    void (async () => {
      try {
        for await (const entry of watch) {
          const update = updateOf(entry.key, entry.operation, entry.value);
          if (update) {
            try {
              onUpdate(update);
            } catch {
              // A reader's failure must not end the watch.
            }
          }
          if ((entry.delta ?? 0) === 0) replayed();
        }
      } catch {
        // The watch failed (connection trouble): the reader is told below and follows again.
      } finally {
        replayed();
        if (!stopped) onEnd?.();
      }
    })();
    await done;
    return {
      close: () => {
        stopped = true;
        watch.stop();
      },
    };
  }

  /** The tenant's bucket when it exists (readers never create one). */
  private async existing(tenant: string): Promise<KV | undefined> {
    const cached = this.buckets.get(tenant);
    if (cached) return cached;
    try {
      const kv = await this.kvm.open(symbolIndexBucket(tenant));
      await kv.status(); // open() does not check that the bucket exists
      this.buckets.set(tenant, Promise.resolve(kv));
      return kv;
    } catch {
      return undefined;
    }
  }

  private writable(tenant: string): Promise<KV> {
    let kv = this.buckets.get(tenant);
    if (!kv) {
      const bucket = symbolIndexBucket(tenant);
      kv = createKvBucket(this.kvm, bucket, {
        history: 1,
        max_bytes: this.options.maxBytesPerTenant ?? DEFAULT_INDEX_MAX_BYTES_PER_TENANT,
        replicas: this.options.replicas ?? 1,
      })
        // A bucket an operator made with other limits is used as it is.
        .catch(() => this.kvm.open(bucket));
      kv.catch(() => this.buckets.delete(tenant));
      this.buckets.set(tenant, kv);
    }
    return kv;
  }
}

function updateOf(key: string, operation: string, value: Uint8Array): SymbolIndexUpdate | undefined {
  const parsed = parseSymbolIndexKey(key);
  if (!parsed) return undefined;
  if (operation !== "PUT") {
    return parsed.kind === "file"
      ? { type: "deleted", workspace: parsed.workspace, file: parsed.file }
      : { type: "workspaceDeleted", workspace: parsed.workspace };
  }
  try {
    return parsed.kind === "meta"
      ? { type: "meta", meta: decodeJson<SymbolIndexMeta>(value) }
      : { type: "file", workspace: parsed.workspace, entry: decodeJson<SymbolIndexFileEntry>(value) };
  } catch {
    return undefined; // not JSON: written by something else; ignored
  }
}
