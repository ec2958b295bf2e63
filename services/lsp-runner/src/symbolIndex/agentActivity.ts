// Agents' requests in flight on this runner: background indexing waits for a quiet moment before
// each file, so that it never delays an agent's call.
export class AgentActivity {
  private inFlight = 0;
  private waiters: Array<() => void> = [];

  /** Marks one request as started; call the returned function once when it ends. */
  begin(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      if (this.inFlight === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  get busy(): boolean {
    return this.inFlight > 0;
  }

  /**
   * Resolves when no request is in flight, or after maxWaitMs at the latest (a long diagnostics
   * wait or a hung call must not stop indexing for good).
   */
  quiet(maxWaitMs: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((waiter) => waiter !== done);
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      this.waiters.push(done);
    });
  }
}
