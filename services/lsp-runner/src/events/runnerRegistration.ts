// Keeps this runner's entry in the registry (KV `lspmesh-runners`, docs/events.md): written at
// start, refreshed every heartbeat with a new updatedAt and load, removed on clean shutdown.
// Gateways judge liveness by updatedAt (isLive), never by KV expiry.
import { type RunnerRegistryEntry, retryTransient } from "@lspmesh/events";
import type { RunnerEventBus } from "./eventBus.js";

/** Heartbeat period, ms (default 5 000): an entry is dead after 3 missed heartbeats. */
export const DEFAULT_HEARTBEAT_MS = 5_000;

/** KV keys and NATS tokens: letters, digits, '_', '-', '=', '.'; starting with a letter or digit. */
export const RUNNER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_=.-]{0,127}$/;

export type RunnerEntryFields = Omit<RunnerRegistryEntry, "v" | "updatedAt" | "heartbeatMs">;

export class RunnerRegistration {
  private timer: NodeJS.Timeout | undefined;
  private failing = false;
  private closing: Promise<void> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private started = false;

  constructor(
    private readonly bus: RunnerEventBus,
    /** The entry's current fields (load changes between heartbeats). */
    private readonly fields: () => RunnerEntryFields,
    private readonly heartbeatMs = DEFAULT_HEARTBEAT_MS,
    private readonly log: (entry: Record<string, unknown>) => void = () => {},
  ) {
    const id = fields().id;
    if (!RUNNER_ID_PATTERN.test(id)) {
      throw new Error(
        `invalid runner id '${id.slice(0, 140)}': use up to 128 letters, digits, '_', '-', '=' or '.', starting with a letter or digit`,
      );
    }
  }

  /**
   * Writes the entry now and every heartbeat after. A write that fails while the NATS cluster elects
   * a leader is retried for up to two heartbeats (an entry is dead after three: a node's loss costs
   * none); other failures, and those lasting longer, are retried at the next beat.
   */
  async start(): Promise<void> {
    this.started = true;
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.timer.unref();
  }

  /** The entry as it would be written now. */
  entry(): RunnerRegistryEntry {
    return { v: 1, ...this.fields(), updatedAt: Date.now(), heartbeatMs: this.heartbeatMs };
  }

  /** Writes the entry now, between heartbeats (its fields changed: handoff); not before start() nor after close(). */
  publishNow(): Promise<void> {
    return this.started ? this.beat() : Promise.resolve();
  }

  /** Stops the heartbeat and removes the entry. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.timer);
      await this.writing;
      await this.bus
        .deleteRunner(this.fields().id)
        .catch((error) =>
          this.log({ level: "warn", msg: "registry entry not removed; it expires by updatedAt", error: String(error) }),
        );
    })();
    return this.closing;
  }

  private beat(): Promise<void> {
    // One write at a time: a slow write must not let an older entry land after a newer one.
    this.writing = this.writing.then(async () => {
      if (this.closing) return;
      try {
        const put = async () => (this.closing ? undefined : this.bus.putRunner(this.entry()));
        // Retried every half second at most (not the default 2 s): the entry lands soon after the
        // cluster has a leader again. A node's loss leaves a bucket without one for about 8 s (NATS
        // 2.9/2.10, three servers), so a beat falling due just before the loss lands up to 13 s after
        // the last, under the three beats (15 s) after which gateways drop the runner.
        await retryTransient(put, { budgetMs: 2 * this.heartbeatMs, maxDelayMs: 500 });
        if (this.failing) this.log({ level: "info", msg: "registry heartbeat restored" });
        this.failing = false;
      } catch (error) {
        if (!this.failing) this.log({ level: "warn", msg: "registry heartbeat failed", error: String(error) });
        this.failing = true;
      }
    });
    return this.writing;
  }
}
