// Which runners exist and which are alive. Two sources: a static list (single machine, simple
// deployments) and the NATS KV registry `lspmesh-runners` that runners heartbeat into.
import {
  ANY_LANGUAGE,
  isLive,
  KvFollower,
  type KvWatchSource,
  RUNNER_REGISTRY_BUCKET,
  type RunnerClaims,
  type RunnerRegistryEntry,
  registryEntryFrom,
  unclaimedTenants,
} from "@lspmesh/events";

export { ANY_LANGUAGE, registryEntryFrom };

/** What routing needs to know about one runner. */
export interface RunnerEntry {
  readonly id: string;
  /** host:port of its gRPC server. */
  readonly address: string;
  /** host:port where its tenants' workers take connections of their own (direct worker connections). */
  readonly workerAddress?: string | undefined;
  /** Language ids it serves; ["*"] = any. */
  readonly languages: readonly string[];
  /**
   * File extensions (with the dot, lower case) of each language it serves, as its languages file
   * defines them; undefined when it did not say (a static runner): it decides for itself.
   */
  readonly extensions?: Readonly<Record<string, readonly string[]>> | undefined;
  /** Tenants it admits; undefined = any (shared pool). */
  readonly tenants?: readonly string[] | undefined;
  readonly load: number;
}

export interface RunnerDirectory {
  /** The live runners now. */
  live(now?: number): RunnerEntry[];
  /** Every runner known, live or not (for metrics and /readyz). */
  known(now?: number): Array<RunnerEntry & { live: boolean }>;
  /** True once the directory has loaded its source (the registry's initial values). */
  readonly loaded: boolean;
  /** Why the directory is routing on old knowledge (its source unreachable), or undefined. */
  degraded?(now?: number): string | undefined;
  /** Stops watching. Idempotent. */
  close(): Promise<void>;
}

/** A fixed list of runner addresses; every one is always considered live and serves any language. */
export class StaticRunnerDirectory implements RunnerDirectory {
  readonly loaded = true;
  private readonly entries: RunnerEntry[];

  constructor(addresses: readonly string[]) {
    if (addresses.length === 0) throw new Error("a static runner list needs at least one host:port");
    this.entries = addresses.map((address) => ({ id: address, address, languages: [ANY_LANGUAGE], load: 0 }));
  }

  live(): RunnerEntry[] {
    return this.entries;
  }

  known(): Array<RunnerEntry & { live: boolean }> {
    return this.entries.map((entry) => ({ ...entry, live: true }));
  }

  async close(): Promise<void> {}
}

export function entryFromRegistry(entry: RunnerRegistryEntry): RunnerEntry {
  return {
    id: entry.id,
    address: entry.address,
    ...(entry.workerAddress ? { workerAddress: entry.workerAddress } : {}),
    languages: entry.languages,
    extensions: entry.extensions,
    tenants: entry.tenants,
    load: typeof entry.load === "number" ? entry.load : 0,
  };
}

/** The subset of the KV watch API the registry directory uses (a real @nats-io/kv KV in production). */
export type RegistryWatchSource = KvWatchSource;

/**
 * Runners from the KV bucket `lspmesh-runners`, kept current by a watch. Liveness is judged by
 * `updatedAt` (younger than 3 heartbeats, isLive), never by KV expiry events, which older NATS
 * servers do not send; so a runner killed without deregistering drops out by itself. With
 * claims, a runner is routed only the tenants it holds claims on (runnerClaims.ts), and one
 * without any claim is not live.
 */
export class RegistryRunnerDirectory implements RunnerDirectory {
  private readonly entries = new Map<string, RunnerRegistryEntry>();
  private readonly follower: KvFollower;
  /** Claims already reported as not held (runner id and tenant), so each is logged once. */
  private readonly reported = new Set<string>();

  constructor(
    source: RegistryWatchSource,
    private readonly onProblem: (message: string, key: string) => void = () => {},
    private readonly claims?: RunnerClaims,
  ) {
    const decoder = new TextDecoder();
    this.follower = new KvFollower(
      "registry",
      RUNNER_REGISTRY_BUCKET,
      source,
      (change) => {
        if (change.operation === "DEL" || change.operation === "PURGE") {
          this.entries.delete(change.key);
          return;
        }
        let parsed: ReturnType<typeof registryEntryFrom>;
        try {
          parsed = registryEntryFrom(change.key, JSON.parse(decoder.decode(change.value)));
        } catch {
          parsed = { problem: "not JSON" };
        }
        if (parsed.entry) this.entries.set(change.key, parsed.entry);
        else {
          this.entries.delete(change.key);
          this.onProblem(`ignored registry entry: ${parsed.problem}`, change.key);
        }
      },
      onProblem,
    );
  }

  get loaded(): boolean {
    return this.follower.loaded;
  }

  /** Starts the watch; resolves once the bucket's current values are loaded. */
  start(): Promise<void> {
    return this.follower.start();
  }

  /** Told when the registry's watch ends (true: heartbeats go unseen) and when it is open again (false). */
  onWatchInterruption(listener: (interrupted: boolean) => void): () => void {
    return this.follower.onInterruption(listener);
  }

  /** The entry as routing sees it: its tenants cut to those it claims. */
  private routed(entry: RunnerRegistryEntry): RunnerEntry {
    const routed = entryFromRegistry(entry);
    if (!this.claims) return routed;
    const admitted = this.claims.admitted(entry.id, entry.tenants);
    for (const tenant of unclaimedTenants(entry.tenants, admitted)) {
      if (this.reported.has(`${entry.id}\n${tenant}`)) continue;
      this.reported.add(`${entry.id}\n${tenant}`);
      this.onProblem(`runner lists ${tenant} without holding its claim: not routed for it`, entry.id);
    }
    return { ...routed, tenants: admitted };
  }

  private claimsAny(entry: RunnerEntry): boolean {
    return entry.tenants === undefined || entry.tenants.length > 0;
  }

  live(now = Date.now()): RunnerEntry[] {
    return [...this.entries.values()]
      .filter((entry) => isLive(entry, now))
      .map((entry) => this.routed(entry))
      .filter((entry) => this.claimsAny(entry));
  }

  known(now = Date.now()): Array<RunnerEntry & { live: boolean }> {
    return [...this.entries.values()].map((entry) => {
      const routed = this.routed(entry);
      return { ...routed, live: isLive(entry, now) && this.claimsAny(routed) };
    });
  }

  async close(): Promise<void> {
    this.follower.close();
    this.claims?.close();
  }
}
