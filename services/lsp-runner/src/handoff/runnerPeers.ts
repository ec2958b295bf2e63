// The registry entries a runner sees (handoff): the runners its NATS identity may read
// (registryViewKeys), followed live from KV `lspmesh-runners` and their claims from KV
// `lspmesh-runner-claims`, read the way gateways read them (registryEntryFrom, RunnerClaims) so
// that a successor computed here is the runner the gateways will route to.
import {
  isLive,
  KvFollower,
  type KvWatchSource,
  RUNNER_REGISTRY_BUCKET,
  RunnerClaims,
  type RunnerRegistryEntry,
  registryEntryFrom,
} from "@lspmesh/events";
import type { PeerEntry } from "./handoffPlan.js";

export interface RunnerPeersOptions {
  registry: KvWatchSource;
  claims: KvWatchSource;
  /** Called after every change of an entry. */
  onChange: () => void;
  onProblem: (message: string, key: string) => void;
}

export class RunnerPeers {
  private readonly entries = new Map<string, RunnerRegistryEntry>();
  private readonly claims: RunnerClaims;
  private readonly follower: KvFollower;
  private closed = false;

  constructor(private readonly options: RunnerPeersOptions) {
    const decoder = new TextDecoder();
    // Claims change rarely (a runner starting or stopping writes them before its entry): a change
    // of theirs is seen at the next entry change or the handoff's periodic check.
    this.claims = new RunnerClaims(options.claims, options.onProblem);
    this.follower = new KvFollower(
      "registry",
      RUNNER_REGISTRY_BUCKET,
      options.registry,
      (change) => {
        if (change.operation === "DEL" || change.operation === "PURGE") this.entries.delete(change.key);
        else {
          let entry: RunnerRegistryEntry | undefined;
          try {
            entry = registryEntryFrom(change.key, JSON.parse(decoder.decode(change.value))).entry;
          } catch {}
          if (entry) this.entries.set(change.key, entry);
          else this.entries.delete(change.key);
        }
        this.changed();
      },
      options.onProblem,
    );
  }

  /** Follows both buckets; resolves once their current values are loaded (rejects when NATS refuses). */
  async start(): Promise<void> {
    // Claims first: an entry seen before its claims would not count for a moment.
    await this.claims.start();
    await this.follower.start();
  }

  /** Live runners, each with the tenants it is routed (its claims), as gateways rank them. */
  live(now = Date.now()): PeerEntry[] {
    return [...this.entries.values()]
      .filter((entry) => isLive(entry, now))
      .map((entry) => ({
        id: entry.id,
        languages: entry.languages,
        tenants: this.claims.admitted(entry.id, entry.tenants),
        draining: entry.draining === true,
        warm: entry.warm ?? [],
      }))
      .filter((entry) => entry.tenants === undefined || entry.tenants.length > 0);
  }

  /** Stops following. Idempotent. */
  close(): void {
    this.closed = true;
    this.follower.close();
    this.claims.close();
  }

  private changed(): void {
    if (!this.closed) this.options.onChange();
  }
}
