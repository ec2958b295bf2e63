// The symbol indexes this gateway has loaded, one TenantIndex per tenant, each loaded on that
// tenant's first search and then followed live. A search asks for its caller's tenant only, so
// it can neither return nor load another tenant's index.
import type { IndexFollower, SymbolIndexReader } from "@lspmesh/events";
import { TenantIndex } from "./tenantIndex.js";

/** A tenant without an index bucket is asked again after this long, ms (its first runner may create it). */
const MISSING_RETRY_MS = 2_000;

export class SymbolIndexCache {
  private readonly tenants = new Map<string, Promise<TenantIndex | undefined>>();
  private readonly followers: IndexFollower[] = [];
  private readonly missingSince = new Map<string, number>();
  private closed = false;

  constructor(private readonly reader: SymbolIndexReader) {}

  /** The tenant's indexes, loaded on first use; undefined while the tenant has none stored. */
  async tenant(tenant: string): Promise<TenantIndex | undefined> {
    const missing = this.missingSince.get(tenant);
    if (missing !== undefined && Date.now() - missing < MISSING_RETRY_MS) return undefined;
    let loading = this.tenants.get(tenant);
    if (!loading) {
      loading = this.load(tenant);
      this.tenants.set(tenant, loading);
    }
    const index = await loading;
    if (!index) {
      this.tenants.delete(tenant);
      this.missingSince.set(tenant, Date.now());
    } else {
      this.missingSince.delete(tenant);
    }
    return index;
  }

  /** Tenants whose indexes are loaded (for tests and metrics). */
  loadedTenants(): string[] {
    return [...this.tenants.keys()];
  }

  /** Stops following every tenant. Idempotent. */
  close(): void {
    this.closed = true;
    for (const follower of this.followers.splice(0)) follower.close();
  }

  private async load(tenant: string): Promise<TenantIndex | undefined> {
    if (this.closed) return undefined;
    const index = new TenantIndex(tenant);
    // Unreachable store: searched live this time, asked again after MISSING_RETRY_MS.
    // A watch lost for good (connection trouble): the next search loads the tenant again.
    const lost = () =>
      void this.tenants.get(tenant)?.then((current) => {
        if (current === index) this.tenants.delete(tenant);
      });
    const follower = await this.reader.follow(tenant, (update) => index.apply(update), lost).catch(() => undefined);
    if (!follower) return undefined;
    if (this.closed) follower.close();
    else this.followers.push(follower);
    return index;
  }
}
