// One call shared by every caller asking the same question while it runs (the gateway's and the
// runner's answer caches). It is cancelled only once every caller that could give up did: a caller
// giving up gets its own error at once, the others keep waiting for the answer.

export interface SharedCallOptions {
  /** The error a caller that gave up gets. */
  cancelled(): Error;
  /** Called once when every joiner gave up, before the call is cancelled (drop it from the map that finds it). */
  abandoned?(): void;
}

export class SharedCall<T> {
  private readonly cancel = new AbortController();
  private joined = 0;
  /** The answer, or the call's error; shared by every joiner. */
  readonly settled: Promise<T>;

  /** Starts `work` at once; its signal is aborted when every joiner gave up (or `abandon`). */
  constructor(
    work: (signal: AbortSignal) => Promise<T>,
    private readonly options: SharedCallOptions,
  ) {
    this.settled = work(this.cancel.signal);
    this.settled.catch(() => {}); // joiners see the error; nobody joining must not be unhandled
  }

  /** The answer for one more caller; rejects at once with `cancelled()` when its signal aborts. */
  join(signal?: AbortSignal): Promise<T> {
    this.joined++;
    if (!signal) return this.settled;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        if (--this.joined === 0) this.abandon(signal.reason);
        reject(this.options.cancelled());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.settled.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  /** Cancels the call when nobody waits on it (a background ask nobody joined); true if it did. */
  abandonIfUnjoined(reason?: unknown): boolean {
    if (this.joined > 0) return false;
    this.abandon(reason);
    return true;
  }

  private abandon(reason: unknown): void {
    if (this.cancel.signal.aborted) return;
    this.options.abandoned?.();
    this.cancel.abort(reason);
  }
}
