// Follows one NATS KV bucket with a watch: the current values first, then every change. A watch
// that ends (connection trouble, its consumer lost with a NATS node) is opened again after a pause
// and replays the current values; listeners hear when the bucket stops being followed and when a
// new watch is open again (the values it holds may be old in between).

/** One change as a KV watch delivers it (a real @nats-io/kv watch in production). */
export interface KvChange {
  key: string;
  operation: string;
  value: Uint8Array;
  delta?: number;
}

/** The subset of the KV watch API followed here. */
export interface KvWatchSource {
  watch(): Promise<AsyncIterable<KvChange> & { stop(): void }>;
}

/** Pause before a watch that ended is opened again, in ms (default 1 000). */
const REWATCH_DELAY_MS = 1000;

/** How long an empty bucket is waited on before it counts as loaded, in ms (default 500). */
const EMPTY_BUCKET_SETTLE_MS = 500;

export class KvFollower {
  private stopWatch: (() => void) | undefined;
  private readonly interruptionListeners = new Set<(interrupted: boolean) => void>();
  private closed = false;
  private initial: Promise<void> | undefined;
  loaded = false;

  constructor(
    /** What the bucket holds, for problems ("registry"). */
    private readonly what: string,
    /** The bucket's name: the key problems are reported under. */
    private readonly bucket: string,
    private readonly source: KvWatchSource,
    /** Applies one change (a put, or a DEL/PURGE operation). */
    private readonly apply: (change: KvChange) => void,
    private readonly onProblem: (message: string, key: string) => void = () => {},
  ) {}

  /** Starts the watch; resolves once the bucket's current values are applied. */
  start(): Promise<void> {
    this.initial ??= this.run();
    return this.initial;
  }

  /** Stops watching. Idempotent. */
  close(): void {
    this.closed = true;
    this.interruptionListeners.clear();
    this.stopWatch?.();
  }

  /**
   * `listener(true)` when a watch ended and changes are not followed until another opens,
   * `listener(false)` once it has (its replay of the current values follows). Returns the unsubscribe.
   */
  onInterruption(listener: (interrupted: boolean) => void): () => void {
    this.interruptionListeners.add(listener);
    return () => this.interruptionListeners.delete(listener);
  }

  private tell(interrupted: boolean): void {
    for (const listener of this.interruptionListeners) listener(interrupted);
  }

  private async run(): Promise<void> {
    let markLoaded: () => void = () => {};
    const loaded = new Promise<void>((resolve) => {
      markLoaded = resolve;
    });
    const done = () => {
      this.loaded = true;
      markLoaded();
    };
    // The first watch must start (a bad URL or bucket fails open); later ones are retried.
    const first = await this.source.watch();
    // The current values arrive first, the last with delta 0; an empty bucket sends nothing at all.
    const settle = setTimeout(done, EMPTY_BUCKET_SETTLE_MS);
    void this.follow(first, done);
    await loaded;
    clearTimeout(settle);
  }

  private async follow(watch: Awaited<ReturnType<KvWatchSource["watch"]>>, done: () => void): Promise<void> {
    for (;;) {
      this.stopWatch = () => watch.stop();
      if (this.closed) watch.stop();
      try {
        for await (const change of watch) {
          if (!this.loaded && (change.delta ?? 0) === 0) queueMicrotask(done);
          this.apply(change);
        }
      } catch (error) {
        this.onProblem(`${this.what} watch failed: ${String(error)}`, this.bucket);
      }
      if (this.closed) return;
      this.onProblem(`${this.what} watch ended; watching again`, this.bucket);
      this.tell(true);
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, REWATCH_DELAY_MS).unref());
        if (this.closed) return;
        try {
          watch = await this.source.watch();
          this.tell(false);
          break;
        } catch (error) {
          this.onProblem(`${this.what} watch could not restart: ${String(error)}`, this.bucket);
        }
      }
    }
  }
}
