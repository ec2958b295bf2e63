// Unsaved content laid over a session's documents (check_edit) must be seen by the check alone:
// while it is laid, no other caller's request or document sync may reach the server, and the
// check waits until the ones already running have finished. A read/write gate: ordinary work is
// shared, the check exclusive; work started inside the exclusive section passes straight through.
import { AsyncLocalStorage } from "node:async_hooks";

export class OverlayGate {
  /** Marks the async context of the exclusive holder, so its own calls are not queued behind it. */
  private static readonly holder = new AsyncLocalStorage<ReadonlySet<OverlayGate>>();
  private active = 0;
  private exclusiveTail: Promise<void> = Promise.resolve();
  private exclusiveHeld = false;
  private drained: (() => void) | undefined;
  private released: Promise<void> = Promise.resolve();

  /** Runs ordinary work: after any exclusive section queued before it, alongside other shared work. */
  async shared<T>(work: () => Promise<T>): Promise<T> {
    if (OverlayGate.holder.getStore()?.has(this)) return work();
    while (this.exclusiveHeld) await this.released;
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      if (this.active === 0) this.drained?.();
    }
  }

  /** Runs `work` alone: one exclusive section at a time, after the shared work in flight. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.exclusiveTail.then(async () => {
      let release!: () => void;
      this.released = new Promise((resolve) => (release = resolve));
      this.exclusiveHeld = true;
      try {
        if (this.active > 0) await new Promise<void>((resolve) => (this.drained = resolve));
        this.drained = undefined;
        const holders = new Set(OverlayGate.holder.getStore() ?? []).add(this);
        return await OverlayGate.holder.run(holders, work);
      } finally {
        this.exclusiveHeld = false;
        release();
      }
    });
    this.exclusiveTail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}
