// Keeps sessions warm across a rollout (docs/architecture.md, "Handoff"). A draining runner marks
// its registry entry `draining` and keeps answering; every runner follows the registry and warms
// the sessions a draining runner lists whose successor it is, then lists them in its own entry's
// `warm`; the draining runner stops taking calls once each is warm at its successor (or after the
// budget). A starting runner warms, before it registers, the sessions others hold that it will own.
import { MAX_WARM_SESSIONS, type SessionRef, sessionId } from "@lspmesh/events";
import {
  handoffComplete,
  handoffStates,
  type PeerEntry,
  sessionsToReclaim,
  sessionsToTakeOver,
} from "./handoffPlan.js";

/** The registry as the handoff reads it (RunnerPeers). */
export interface PeerSource {
  start(): Promise<void>;
  live(now?: number): PeerEntry[];
  close(): void;
}

export interface HandoffOptions {
  /** This runner's routing fields. */
  self: Omit<PeerEntry, "draining" | "warm">;
  /** Built with the function that tells of registry changes. */
  peers: (onChange: () => void) => PeerSource;
  /** Sessions warm here, most recently used first (ids). */
  warmSessions: () => string[];
  /** Warms one session by a real call through this runner's service; rejects when it cannot. */
  warm: (session: SessionRef, signal: AbortSignal) => Promise<void>;
  /** Writes this runner's registry entry now (its `warm` or `draining` changed). */
  publish: () => Promise<void>;
  /** Longest wait for successors in a drain, and for warm-ups before registering, ms. */
  budgetMs: number;
  log: (entry: Record<string, unknown>) => void;
  /** Warm-ups at once (default 2: language servers load projects on a few cores). */
  concurrency?: number;
  /** How often the plan is looked at again without a registry change, ms (default 500). */
  checkMs?: number;
}

/** What a drain or a start achieved, for the log. */
export interface HandoffReport {
  sessions: number;
  warm: number;
  ms: number;
}

/** A session handed over and warmed here stays in `warm` this long before the reports must list it, ms. */
const TAKEN_LISTED_MS = 10_000;
/** A warm-up that failed is not tried again for this long, ms. */
const RETRY_MS = 60_000;

export class Handoff {
  private draining = false;
  private closed = false;
  private readonly peers: PeerSource;
  private readonly queue: SessionRef[] = [];
  /** Ids being warmed now; not listed as warm until done. */
  private readonly warming = new Set<string>();
  /** Ids the handoff warmed, and when. */
  private readonly taken = new Map<string, number>();
  /** Ids the handoff failed to warm, and when. */
  private readonly failed = new Map<string, number>();
  private readonly stop = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly options: HandoffOptions) {
    this.peers = options.peers(() => this.changed());
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Follows the registry; false (logged) when it cannot be read: no handoff, drains as before. */
  async start(): Promise<boolean> {
    try {
      await this.peers.start();
      if (this.closed) return false;
      this.timer = setInterval(() => this.changed(), this.options.checkMs ?? 500);
      this.timer.unref();
      return true;
    } catch (error) {
      this.options.log({
        level: "warn",
        msg: "handoff off: the runner registry cannot be read with this runner's NATS identity; mint its credential again (lspmesh admin creds runner) or regenerate the authorization (lspmesh nats-auth)",
        error: String(error),
      });
      this.close();
      return false;
    }
  }

  /** The registry's `warm`: sessions warm here, those just taken over first, none still warming. */
  warmList(): string[] {
    const now = Date.now();
    const recent = [...this.taken].filter(([, at]) => now - at < TAKEN_LISTED_MS).map(([id]) => id);
    // The latest taken over first: they are the ones just used (by the warm-up).
    const ids = new Set([...recent.reverse(), ...this.options.warmSessions()]);
    return [...ids].filter((id) => !this.warming.has(id)).slice(0, MAX_WARM_SESSIONS);
  }

  /** Before registering: warms the sessions this runner will own (others hold them warm), up to the budget. */
  async reclaim(): Promise<HandoffReport> {
    const started = Date.now();
    const sessions = sessionsToReclaim(this.selfEntry(), this.peers.live(), this.known());
    this.enqueue(sessions);
    await this.until(() => this.queue.length === 0 && this.warming.size === 0, this.options.budgetMs);
    // Left when the budget ran out: still queued or warming (those finish in the background), or failed.
    const left = new Set([...this.queue.map(sessionId), ...this.warming, ...this.failed.keys()]);
    this.queue.length = 0;
    const warm = sessions.filter((session) => !left.has(sessionId(session))).length;
    return { sessions: sessions.length, warm, ms: Date.now() - started };
  }

  /**
   * Marks the entry draining (gateways keep routing here) and resolves once every session listed
   * warm here is warm at its successor, or has none, or after the budget (at most limitMs).
   */
  async drain(limitMs = Number.POSITIVE_INFINITY): Promise<HandoffReport> {
    const started = Date.now();
    const budgetMs = Math.min(this.options.budgetMs, limitMs);
    this.draining = true;
    this.queue.length = 0;
    await this.options.publish().catch(() => {});
    const states = () => handoffStates(this.warmList(), this.options.self.id, this.peers.live());
    await this.until(() => handoffComplete(states()), budgetMs);
    const last = states().filter((state) => state.successor !== undefined);
    return { sessions: last.length, warm: last.filter((state) => state.warm).length, ms: Date.now() - started };
  }

  /** Stops following the registry and warming. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.stop.abort();
    this.queue.length = 0;
    this.peers.close();
    this.wake?.();
  }

  private selfEntry(): PeerEntry {
    return { ...this.options.self, draining: this.draining, warm: [] };
  }

  /** Ids warm, warming, queued, just warmed or failed lately: not warmed again. */
  private known(): Set<string> {
    return new Set([
      ...this.options.warmSessions(),
      ...this.warming,
      ...this.queue.map(sessionId),
      ...this.taken.keys(),
      ...this.failed.keys(),
    ]);
  }

  /** Forgets warm-ups the reports list by now, and failures old enough to try again. */
  private prune(now = Date.now()): void {
    for (const [id, at] of this.taken) if (now - at >= TAKEN_LISTED_MS) this.taken.delete(id);
    for (const [id, at] of this.failed) if (now - at >= RETRY_MS) this.failed.delete(id);
  }

  private changed(): void {
    this.wake?.();
    if (this.closed || this.draining) return;
    this.prune();
    this.enqueue(sessionsToTakeOver(this.selfEntry(), this.peers.live(), this.known()));
  }

  private enqueue(sessions: readonly SessionRef[]): void {
    this.queue.push(...sessions);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.warming.size < (this.options.concurrency ?? 2) && this.queue.length > 0) {
      const session = this.queue.shift()!;
      const id = sessionId(session);
      this.warming.add(id);
      const started = Date.now();
      void this.options
        .warm(session, this.stop.signal)
        .then(
          () => {
            this.taken.set(id, Date.now());
            this.options.log({ level: "info", msg: "handoff: session warmed", session: id, ms: Date.now() - started });
          },
          (error: unknown) => {
            this.failed.set(id, Date.now());
            this.options.log({ level: "warn", msg: "handoff: session not warmed", session: id, error: String(error) });
          },
        )
        .finally(() => {
          this.warming.delete(id);
          if (this.closed) return;
          void this.options.publish().catch(() => {});
          this.pump();
          this.wake?.();
        });
    }
  }

  /** Resolves once `done()` holds (looked at on every change and check) or after ms. */
  private async until(done: () => boolean, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.closed && !done() && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(deadline - Date.now(), this.options.checkMs ?? 500));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}
