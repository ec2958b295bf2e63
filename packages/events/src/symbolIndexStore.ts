// Where symbol indexes are kept: the interface runners write through and gateways read through,
// and the in-memory store of single-machine mode (the same interface as the JetStream one in
// natsSymbolIndexStore.ts). Reading is per tenant by construction: there is no call that returns
// more than one tenant's indexes.
import type { SymbolIndexFileEntry, SymbolIndexMeta, SymbolIndexUpdate } from "./symbolIndex.js";

export interface StoredWorkspaceIndex {
  meta?: SymbolIndexMeta;
  files: Map<string, SymbolIndexFileEntry>;
}

export interface IndexFollower {
  /** Stops following. Idempotent. */
  close(): void;
}

/** What a runner needs: read back its own workspaces' indexes and write their changes. */
export interface SymbolIndexWriter {
  /** The stored index of one workspace (empty when none). */
  read(tenant: string, workspace: string): Promise<StoredWorkspaceIndex>;
  putFile(tenant: string, workspace: string, entry: SymbolIndexFileEntry): Promise<void>;
  deleteFile(tenant: string, workspace: string, file: string): Promise<void>;
  putMeta(meta: SymbolIndexMeta): Promise<void>;
  /**
   * Workspaces whose stored meta names this runner (a restarted runner catches them up), among
   * these tenants' indexes (a dedicated pool) or every tenant's (undefined).
   */
  ownedBy(runner: string, tenants?: readonly string[]): Promise<Array<{ tenant: string; workspace: string }>>;
}

/** What a gateway needs: one tenant's indexes, replayed and then followed live. */
export interface SymbolIndexReader {
  /**
   * Replays every stored entry of the tenant to onUpdate, resolves once the replay is done, and
   * keeps delivering changes until closed. Undefined when the tenant has no index yet (call again later).
   */
  follow(
    tenant: string,
    onUpdate: (update: SymbolIndexUpdate) => void,
    /** Told when following stopped by itself (a lost watch): the reader should follow again. */
    onEnd?: () => void,
  ): Promise<IndexFollower | undefined>;
}

export type SymbolIndexStore = SymbolIndexWriter & SymbolIndexReader;

interface TenantIndexes {
  metas: Map<string, SymbolIndexMeta>;
  files: Map<string, Map<string, SymbolIndexFileEntry>>;
  listeners: Set<(update: SymbolIndexUpdate) => void>;
}

/** Single-machine mode: indexes in this process's memory, shared by its runner and gateway. */
export class InMemorySymbolIndexStore implements SymbolIndexStore {
  private readonly tenants = new Map<string, TenantIndexes>();

  async read(tenant: string, workspace: string): Promise<StoredWorkspaceIndex> {
    const indexes = this.tenants.get(tenant);
    const meta = indexes?.metas.get(workspace);
    return { ...(meta ? { meta } : {}), files: new Map(indexes?.files.get(workspace) ?? []) };
  }

  async putFile(tenant: string, workspace: string, entry: SymbolIndexFileEntry): Promise<void> {
    const indexes = this.tenant(tenant);
    const files = indexes.files.get(workspace) ?? new Map<string, SymbolIndexFileEntry>();
    indexes.files.set(workspace, files);
    files.set(entry.file, entry);
    notify(indexes, { type: "file", workspace, entry });
  }

  async deleteFile(tenant: string, workspace: string, file: string): Promise<void> {
    const indexes = this.tenant(tenant);
    if (!indexes.files.get(workspace)?.delete(file)) return;
    notify(indexes, { type: "deleted", workspace, file });
  }

  async putMeta(meta: SymbolIndexMeta): Promise<void> {
    const indexes = this.tenant(meta.tenant);
    indexes.metas.set(meta.workspace, meta);
    notify(indexes, { type: "meta", meta });
  }

  async ownedBy(runner: string, tenants?: readonly string[]): Promise<Array<{ tenant: string; workspace: string }>> {
    return [...this.tenants.values()].flatMap((indexes) =>
      [...indexes.metas.values()]
        .filter((meta) => meta.runner === runner && (!tenants || tenants.includes(meta.tenant)))
        .map((meta) => ({ tenant: meta.tenant, workspace: meta.workspace })),
    );
  }

  async follow(tenant: string, onUpdate: (update: SymbolIndexUpdate) => void): Promise<IndexFollower | undefined> {
    const indexes = this.tenants.get(tenant);
    if (!indexes) return undefined;
    for (const meta of indexes.metas.values()) onUpdate({ type: "meta", meta });
    for (const [workspace, files] of indexes.files) {
      for (const entry of files.values()) onUpdate({ type: "file", workspace, entry });
    }
    indexes.listeners.add(onUpdate);
    return { close: () => indexes.listeners.delete(onUpdate) };
  }

  private tenant(tenant: string): TenantIndexes {
    let indexes = this.tenants.get(tenant);
    if (!indexes) {
      indexes = { metas: new Map(), files: new Map(), listeners: new Set() };
      this.tenants.set(tenant, indexes);
    }
    return indexes;
  }
}

function notify(indexes: TenantIndexes, update: SymbolIndexUpdate): void {
  for (const listener of indexes.listeners) {
    try {
      listener(update);
    } catch {
      // One reader's failure must not stop the writer or the other readers.
    }
  }
}
