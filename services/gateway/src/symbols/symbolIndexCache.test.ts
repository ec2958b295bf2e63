import type { IndexFollower, SymbolIndexFileEntry, SymbolIndexReader, SymbolIndexUpdate } from "@lspmesh/events";
import { expect, test } from "vitest";
import { SymbolIndexCache } from "./symbolIndexCache.js";
import { TenantIndex } from "./tenantIndex.js";

function entry(file: string, names: string[]): SymbolIndexFileEntry {
  const symbols = names.map((name, i) => ({
    name,
    kind: "function",
    line: i + 1,
    column: 1,
    endLine: i + 1,
    endColumn: name.length + 1,
    exported: true,
    snippet: `export function ${name}() {`,
  }));
  return { v: 1, file, language: "typescript", source: "typescript-syntax", epoch: 1, mtimeMs: 1, size: 1, symbols };
}

const fileUpdate = (file: string, names: string[]): SymbolIndexUpdate => ({
  type: "file",
  workspace: "web",
  entry: entry(file, names),
});

interface FakeFollower {
  tenant: string;
  closes: number;
  onUpdate: (update: SymbolIndexUpdate) => void;
  onEnd: (() => void) | undefined;
}

/** Replays each stored tenant's updates, then hands out a follower that counts its close() calls. */
class FakeReader implements SymbolIndexReader {
  readonly followers: FakeFollower[] = [];
  /** Tenants whose follow() waits for release(tenant). */
  private readonly gates = new Map<string, () => void>();

  constructor(readonly stored: Map<string, SymbolIndexUpdate[]>) {}

  async follow(
    tenant: string,
    onUpdate: (update: SymbolIndexUpdate) => void,
    onEnd?: () => void,
  ): Promise<IndexFollower | undefined> {
    if (this.gates.has(tenant)) await new Promise<void>((resolve) => this.gates.set(tenant, resolve));
    const updates = this.stored.get(tenant);
    if (!updates) return undefined;
    for (const update of updates) onUpdate(update);
    const follower: FakeFollower = { tenant, closes: 0, onUpdate, onEnd };
    this.followers.push(follower);
    return { close: () => void follower.closes++ };
  }

  gate(tenant: string): void {
    this.gates.set(tenant, () => {});
  }

  release(tenant: string): void {
    this.gates.get(tenant)?.();
    this.gates.delete(tenant);
  }

  /** The tenant's followers in load order, with how often each was closed. */
  closes(tenant: string): number[] {
    return this.followers.filter((follower) => follower.tenant === tenant).map((follower) => follower.closes);
  }

  latest(tenant: string): FakeFollower {
    return this.followers.filter((follower) => follower.tenant === tenant).at(-1)!;
  }
}

function fakeMetrics() {
  const metrics = {
    evictions: 0,
    bytes: 0,
    tenants: 0,
    sink: {
      evictions: { inc: () => void metrics.evictions++ },
      bytes: {
        set: (value: number) => {
          metrics.bytes = value;
        },
      },
      tenants: {
        set: (value: number) => {
          metrics.tenants = value;
        },
      },
    },
  };
  return metrics;
}

/** Tenants a–e with one file of the same size each, and that size in bytes as estimated. */
function sameSizeTenants(): { reader: FakeReader; bytes: number } {
  const stored = new Map<string, SymbolIndexUpdate[]>();
  for (const tenant of ["a", "b", "c", "d", "e"]) stored.set(tenant, [fileUpdate("src/x.ts", ["alpha", "beta"])]);
  const probe = new TenantIndex("probe");
  probe.apply(fileUpdate("src/x.ts", ["alpha", "beta"]));
  return { reader: new FakeReader(stored), bytes: probe.bytes };
}

test("loading tenants over a tiny budget evicts the least recently searched and closes exactly their followers", async () => {
  const { reader, bytes } = sameSizeTenants();
  const metrics = fakeMetrics();
  const cache = new SymbolIndexCache(reader, { maxBytes: 2.5 * bytes, metrics: metrics.sink });
  await cache.tenant("a");
  await cache.tenant("b");
  expect(cache.loadedTenants()).toEqual(["a", "b"]);
  await cache.tenant("c");
  expect(cache.loadedTenants()).toEqual(["b", "c"]);
  expect(reader.closes("a")).toEqual([1]);
  expect([reader.closes("b"), reader.closes("c")]).toEqual([[0], [0]]);

  await cache.tenant("b"); // b is now the most recently searched: c goes next
  await cache.tenant("d");
  expect(cache.loadedTenants()).toEqual(["b", "d"]);
  expect(reader.closes("c")).toEqual([1]);
  expect(reader.closes("b")).toEqual([0]);
  expect(metrics).toMatchObject({ evictions: 2, bytes: 2 * bytes, tenants: 2 });
  expect(cache.bytes).toBe(2 * bytes);
});

test("past maxTenants the least recently searched tenant is evicted, whatever the bytes", async () => {
  const { reader } = sameSizeTenants();
  const cache = new SymbolIndexCache(reader, { maxTenants: 2 });
  for (const tenant of ["a", "b", "c"]) await cache.tenant(tenant);
  expect(cache.loadedTenants()).toEqual(["b", "c"]);
  expect(reader.closes("a")).toEqual([1]);
});

test("an evicted tenant is loaded again on its next search", async () => {
  const { reader, bytes } = sameSizeTenants();
  const cache = new SymbolIndexCache(reader, { maxBytes: 1.5 * bytes });
  const first = await cache.tenant("a");
  await cache.tenant("b");
  expect(cache.loadedTenants()).toEqual(["b"]);
  const again = await cache.tenant("a");
  expect(again).not.toBe(first);
  expect(again?.symbolCount).toBe(2);
  expect(reader.closes("a")).toEqual([1, 0]);
  expect(cache.loadedTenants()).toEqual(["a"]);
  expect(cache.bytes).toBe(bytes);
});

test("the tenant being searched is never evicted, even alone over the budget", async () => {
  const { reader } = sameSizeTenants();
  const metrics = fakeMetrics();
  const cache = new SymbolIndexCache(reader, { maxBytes: 1, metrics: metrics.sink });
  expect((await cache.tenant("a"))?.symbolCount).toBe(2);
  expect(cache.loadedTenants()).toEqual(["a"]);
  // A live update to the tenant searched last keeps it too (dropping it would reload it next search).
  reader.latest("a").onUpdate(fileUpdate("src/y.ts", ["gamma"]));
  expect(cache.loadedTenants()).toEqual(["a"]);
  expect(metrics.evictions).toBe(0);

  // Two searches under way at once: neither is evicted while loading, the older goes once done.
  reader.gate("b");
  const b = cache.tenant("b");
  await cache.tenant("c");
  expect(cache.loadedTenants()).toEqual(["b", "c"]);
  expect(reader.closes("a")).toEqual([1]);
  reader.release("b");
  await b;
  expect(cache.loadedTenants()).toEqual(["b", "c"]); // b being searched, c the newest
  await cache.tenant("d");
  expect(cache.loadedTenants()).toEqual(["d"]);
  expect(metrics.evictions).toBe(3);
});

test("live updates past the budget evict the least recently searched tenant", async () => {
  const { reader, bytes } = sameSizeTenants();
  const cache = new SymbolIndexCache(reader, { maxBytes: 2.5 * bytes });
  await cache.tenant("a");
  await cache.tenant("b");
  reader.latest("a").onUpdate(fileUpdate("src/y.ts", ["gamma", "delta", "epsilon"]));
  expect(cache.loadedTenants()).toEqual(["b"]);
  expect(reader.closes("a")).toEqual([1]);
  expect(cache.bytes).toBe(bytes);
});

test("a tenant whose follower ends by itself is dropped and loaded again on its next search", async () => {
  const { reader, bytes } = sameSizeTenants();
  const cache = new SymbolIndexCache(reader);
  await cache.tenant("a");
  await cache.tenant("b");
  reader.latest("a").onEnd?.();
  expect(cache.loadedTenants()).toEqual(["b"]);
  expect(cache.bytes).toBe(bytes);
  await cache.tenant("a");
  expect(reader.closes("a")).toHaveLength(2);
  expect(cache.loadedTenants()).toEqual(["b", "a"]);
});

test("close() closes every follower once, and is idempotent", async () => {
  const { reader } = sameSizeTenants();
  const metrics = fakeMetrics();
  const cache = new SymbolIndexCache(reader, { metrics: metrics.sink });
  for (const tenant of ["a", "b", "c"]) await cache.tenant(tenant);
  reader.gate("d");
  const loading = cache.tenant("d");
  cache.close();
  cache.close();
  reader.release("d");
  expect(await loading).toBeDefined(); // the search under way still answers
  expect(reader.followers.map((follower) => [follower.tenant, follower.closes])).toEqual([
    ["a", 1],
    ["b", 1],
    ["c", 1],
    ["d", 1],
  ]);
  expect(cache.loadedTenants()).toEqual([]);
  expect(metrics).toMatchObject({ bytes: 0, tenants: 0 });
  expect(await cache.tenant("a")).toBeUndefined();
});

test("a tenant's estimated bytes follow files replaced and deleted, and workspaces deleted", () => {
  const index = new TenantIndex("acme");
  index.apply(fileUpdate("src/x.ts", ["alpha"]));
  const one = index.bytes;
  expect(one).toBeGreaterThan(0);
  index.apply(fileUpdate("src/x.ts", ["alpha", "betaGamma"]));
  const two = index.bytes;
  expect(two).toBeGreaterThan(one);
  index.apply({ type: "file", workspace: "api", entry: entry("lib/y.ts", ["alpha"]) });
  index.apply({ type: "deleted", workspace: "web", file: "src/x.ts" });
  index.apply({ type: "deleted", workspace: "web", file: "src/x.ts" }); // twice: counted once
  index.apply({ type: "workspaceDeleted", workspace: "web" });
  expect(index.bytes).toBe(one);
  index.apply({ type: "workspaceDeleted", workspace: "api" });
  expect(index.bytes).toBe(0);
});
