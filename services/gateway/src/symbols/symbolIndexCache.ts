// The symbol indexes this gateway has loaded, one TenantIndex per tenant, each loaded on that
// tenant's first search and then followed live. A search asks for its caller's tenant only, so
// it can neither return nor load another tenant's index. Bounded: the least recently searched
// tenants are dropped (their follower closed) past a memory budget or a tenant count, and loaded
// again on their next search.
import type { IndexFollower, SymbolIndexReader, SymbolIndexUpdate } from "@lspmesh/events";
import { TenantIndex } from "./tenantIndex.js";

/** A tenant without an index bucket is asked again after this long, ms (its first runner may create it). */
const MISSING_RETRY_MS = 2_000;
/** Default of SymbolIndexCacheOptions.maxBytes: 128 MiB, in bytes. */
export const DEFAULT_SYMBOL_INDEX_MAX_BYTES = 128 * 1024 * 1024;
/** Default of SymbolIndexCacheOptions.maxTenants. */
export const DEFAULT_SYMBOL_INDEX_MAX_TENANTS = 1_000;

/** What the cache reports (prom-client counters and gauges fit; optional, so tests need no registry). */
export interface SymbolIndexCacheMetrics {
  /** Tenants dropped to stay within the budget. */
  evictions: { inc(): void };
  /** Estimated memory held by every loaded tenant, bytes. */
  bytes: { set(value: number): void };
  /** Tenants loaded (or loading). */
  tenants?: { set(value: number): void };
}

export interface SymbolIndexCacheOptions {
  /** Estimated memory the loaded indexes may hold together, bytes (TenantIndex.bytes); default 128 MiB. */
  maxBytes?: number;
  /** Tenants loaded at most, each with a live follower (a KV watch); default 1 000. */
  maxTenants?: number;
  metrics?: SymbolIndexCacheMetrics;
}

interface Entry {
  readonly index: TenantIndex;
  loading?: Promise<TenantIndex | undefined>;
  /** Set once the replay is done and while the entry is kept; closed when it is dropped. */
  follower?: IndexFollower;
  /** Searches of this tenant under way (loading it or waiting for it): never evicted meanwhile. */
  searching: number;
  /** index.bytes as last added to the cache's total, bytes. */
  counted: number;
}

export class SymbolIndexCache {
  /** Least recently searched first (a search moves its tenant to the end). */
  private readonly entries = new Map<string, Entry>();
  private readonly missingSince = new Map<string, number>();
  private readonly maxBytes: number;
  private readonly maxTenants: number;
  private readonly metrics: SymbolIndexCacheMetrics | undefined;
  /** Sum of the entries' counted bytes. */
  private totalBytes = 0;
  /** The tenant searched last: kept even alone over the budget (dropping it would reload it on the next search). */
  private newest: string | undefined;
  private closed = false;

  constructor(
    private readonly reader: SymbolIndexReader,
    options: SymbolIndexCacheOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? DEFAULT_SYMBOL_INDEX_MAX_BYTES;
    this.maxTenants = options.maxTenants ?? DEFAULT_SYMBOL_INDEX_MAX_TENANTS;
    this.metrics = options.metrics;
  }

  /** The tenant's indexes, loaded on first use; undefined while the tenant has none stored. */
  async tenant(tenant: string): Promise<TenantIndex | undefined> {
    const missing = this.missingSince.get(tenant);
    if (missing !== undefined && Date.now() - missing < MISSING_RETRY_MS) return undefined;
    let entry = this.entries.get(tenant);
    if (entry) this.entries.delete(tenant);
    else entry = { index: new TenantIndex(tenant), searching: 0, counted: 0 };
    this.entries.set(tenant, entry);
    this.newest = tenant;
    entry.searching++;
    try {
      // In the map before loading starts: the replay's updates are counted as they come.
      entry.loading ??= this.load(entry);
      const index = await entry.loading;
      if (!index) {
        if (this.entries.get(tenant) === entry) this.drop(tenant, entry);
        this.missingSince.set(tenant, Date.now());
      } else {
        this.missingSince.delete(tenant);
      }
      this.evict();
      return index;
    } finally {
      entry.searching--;
    }
  }

  /** Tenants whose indexes are loaded or loading, least recently searched first (for tests and metrics). */
  loadedTenants(): string[] {
    return [...this.entries.keys()];
  }

  /** Estimated memory held by every loaded tenant, bytes. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** Stops following every tenant. Idempotent. */
  close(): void {
    this.closed = true;
    for (const [tenant, entry] of this.entries) this.drop(tenant, entry);
    this.report();
  }

  private async load(entry: Entry): Promise<TenantIndex | undefined> {
    if (this.closed) return undefined;
    const { tenant } = entry.index;
    const kept = () => this.entries.get(tenant) === entry;
    // A watch lost for good (connection trouble): dropped, the next search loads the tenant again.
    const lost = () => {
      if (!kept()) return;
      this.drop(tenant, entry);
      this.report();
    };
    // Unreachable store: searched live this time, asked again after MISSING_RETRY_MS.
    const follower = await this.reader
      .follow(tenant, (update) => this.applied(entry, update), lost)
      .catch(() => undefined);
    if (!follower) return undefined;
    // Closed, or lost during the replay: this search still uses the index, the next loads it again.
    if (this.closed || !kept()) follower.close();
    else entry.follower = follower;
    return entry.index;
  }

  private applied(entry: Entry, update: SymbolIndexUpdate): void {
    entry.index.apply(update);
    if (this.entries.get(entry.index.tenant) !== entry) return; // dropped: no longer counted
    this.totalBytes += entry.index.bytes - entry.counted;
    entry.counted = entry.index.bytes;
    // While loading, the search that loads it evicts once the replay is done.
    if (entry.follower) this.evict();
    else this.report();
  }

  /** Drops the least recently searched tenants until within both limits, sparing those searched now and the newest. */
  private evict(): void {
    for (const [tenant, entry] of this.entries) {
      if (this.totalBytes <= this.maxBytes && this.entries.size <= this.maxTenants) break;
      if (entry.searching > 0 || tenant === this.newest) continue;
      this.drop(tenant, entry);
      this.metrics?.evictions.inc();
    }
    this.report();
  }

  private drop(tenant: string, entry: Entry): void {
    this.entries.delete(tenant);
    this.totalBytes -= entry.counted;
    entry.counted = 0;
    entry.follower?.close();
    entry.follower = undefined;
  }

  private report(): void {
    this.metrics?.bytes.set(this.totalBytes);
    this.metrics?.tenants?.set(this.entries.size);
  }
}
