// What a run must undo (language servers, gateway connection, temporary base checkout), closed in
// reverse order exactly once: at the end of the run, or on Ctrl-C, whichever comes first.

export class Cleanup {
  private readonly steps: Array<() => Promise<void>> = [];
  private closing: Promise<void> | undefined;

  add(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  /** Runs every step added so far, last first; failures of one step do not stop the others. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const step of this.steps.reverse()) await step().catch(() => {});
    })();
    return this.closing;
  }
}
