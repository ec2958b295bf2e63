// Routing that outlives a NATS outage. Runners' registry entries go stale after three missed
// heartbeats, and while NATS is unreachable every entry misses them: without this, every call
// would answer UNAVAILABLE although every runner is up. So while the registry cannot be read the
// directory keeps the runners that were live when it was lost, asks each one directly (gRPC
// health) and drops only those that stop serving; routes change again when NATS is back (and the
// runners' fresh heartbeats are in) or when a runner fails its health check.

import type { RunnerDirectory, RunnerEntry } from "./runnerDirectory.js";
import type { RunnerHealth } from "./runnerHealth.js";

export interface RegistryOutageOptions {
  /** How often the last known runners are checked directly during an outage, ms (default 2 000). */
  checkIntervalMs?: number;
  /** Timeout of one health check, ms (default 1 500). */
  checkTimeoutMs?: number;
  /**
   * After NATS is back, how long runners without a fresh heartbeat yet still count, ms (default
   * 15 000: three heartbeats at the runners' default 5 s).
   */
  graceMs?: number;
  now?: () => number;
  /** Told when the outage starts and ends, and when a runner's direct check changes. */
  onChange?: (message: string, fields: Record<string, unknown>) => void;
}

/** What keeps the registry from being followed: the NATS connection, or the registry's watch. */
export type OutageCause = "connection" | "watch";

export class OutageTolerantDirectory implements RunnerDirectory {
  private outageSince: number | undefined;
  /** Causes of the outage not over yet; the grace period starts once none is left. */
  private readonly causes = new Set<OutageCause>();
  private restoredAt: number | undefined;
  /** Runner ids whose direct health check failed during this outage. */
  private readonly failing = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly inner: RunnerDirectory,
    private readonly health: RunnerHealth,
    private readonly options: RegistryOutageOptions = {},
  ) {}

  get loaded(): boolean {
    return this.inner.loaded;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /**
   * The registry cannot be followed, for `cause` ("connection": NATS disconnected; "watch": the
   * registry's watch ended while the connection stayed up). Idempotent while it lasts.
   */
  connectionLost(cause: OutageCause = "connection"): void {
    if (this.closed) return;
    this.causes.add(cause);
    this.restoredAt = undefined;
    if (this.outageSince !== undefined) return;
    this.outageSince = this.now();
    this.failing.clear();
    this.options.onChange?.("registry unreachable; routing to the last known runners, checked directly", {
      runners: this.inner.live(this.outageSince).map((entry) => entry.id),
    });
    this.timer = setInterval(() => void this.checkRunners(), this.options.checkIntervalMs ?? 2_000);
    this.timer.unref();
    void this.checkRunners();
  }

  /**
   * `cause` is over. Once no cause is left the registry is followed again, and the outage ends when
   * fresh heartbeats are in (or after graceMs): a reconnect while the watch is still being opened
   * again does not start the grace period, in which entries would age out unseen.
   */
  connectionRestored(cause: OutageCause = "connection"): void {
    this.causes.delete(cause);
    if (this.outageSince === undefined || this.restoredAt !== undefined || this.causes.size > 0) return;
    this.restoredAt = this.now();
  }

  /** Why routing is degraded now, or undefined. */
  degraded(now = this.now()): string | undefined {
    this.endOutageIfOver(now);
    if (this.outageSince === undefined) return undefined;
    const kept = this.lastKnown().length;
    const since = new Date(this.outageSince).toISOString();
    return this.restoredAt === undefined
      ? `runner registry (NATS) unreachable since ${since}; routing to ${kept} last known runner(s) that pass a direct gRPC health check`
      : `runner registry (NATS) back; waiting for runners' heartbeats (${kept} last known runner(s) still routed to)`;
  }

  live(now = this.now()): RunnerEntry[] {
    this.endOutageIfOver(now);
    if (this.outageSince === undefined) return this.inner.live(now);
    // A runner failing its direct check is out, however fresh its last heartbeat.
    const fresh = this.inner.live(now).filter((entry) => !this.failing.has(entry.id));
    const ids = new Set(fresh.map((entry) => entry.id));
    return [...fresh, ...this.lastKnown().filter((entry) => !ids.has(entry.id))];
  }

  known(now = this.now()): Array<RunnerEntry & { live: boolean }> {
    const live = new Set(this.live(now).map((entry) => entry.id));
    return this.inner.known(now).map((entry) => ({ ...entry, live: live.has(entry.id) }));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopChecks();
    this.health.close();
    await this.inner.close();
  }

  /** Runners live when the outage began that still pass their direct check. */
  private lastKnown(): RunnerEntry[] {
    if (this.outageSince === undefined) return [];
    return this.inner.live(this.outageSince).filter((entry) => !this.failing.has(entry.id));
  }

  private endOutageIfOver(now: number): void {
    if (this.outageSince === undefined || this.restoredAt === undefined) return;
    const fresh = new Set(this.inner.live(now).map((entry) => entry.id));
    const waiting = this.lastKnown().filter((entry) => !fresh.has(entry.id));
    if (waiting.length > 0 && now - this.restoredAt < (this.options.graceMs ?? 15_000)) return;
    this.options.onChange?.("registry back; routing on fresh heartbeats again", {
      outageMs: now - this.outageSince,
      withoutHeartbeat: waiting.map((entry) => entry.id),
    });
    this.outageSince = undefined;
    this.restoredAt = undefined;
    this.causes.clear();
    this.failing.clear();
    this.stopChecks();
  }

  private async checkRunners(): Promise<void> {
    const since = this.outageSince;
    if (since === undefined) return;
    const timeoutMs = this.options.checkTimeoutMs ?? 1_500;
    await Promise.all(
      this.inner.live(since).map(async (entry) => {
        const serving = await this.health.serving(entry.address, timeoutMs);
        if (this.outageSince !== since) return;
        if (serving === this.failing.has(entry.id)) {
          if (serving) this.failing.delete(entry.id);
          else this.failing.add(entry.id);
          this.options.onChange?.(serving ? "runner serving again" : "runner failed its health check", {
            runner: entry.id,
            address: entry.address,
          });
        }
      }),
    );
  }

  private stopChecks(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
