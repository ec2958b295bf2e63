// Agents' requests in flight on this runner: background indexing waits for a quiet moment before
// each file, so that it never delays an agent's call.
export class AgentActivity {
  private inFlight = 0;
  private lastEndedAt = 0;
  private waiters: Array<() => void> = [];

  /** Marks one request as started; call the returned function once when it ends. */
  begin(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.lastEndedAt = Date.now();
      if (this.inFlight === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  get busy(): boolean {
    return this.inFlight > 0;
  }

  /**
   * Resolves when no request is in flight (and none ended in the last idleMs: the agent may be in
   * the middle of a series), or after maxWaitMs at the latest (a long diagnostics wait or a hung
   * call must not stop indexing for good).
   */
  async quiet(maxWaitMs: number, idleMs = 0): Promise<void> {
    const deadline = Date.now() + maxWaitMs;
    while (Date.now() < deadline) {
      if (this.inFlight > 0) {
        await this.noneInFlight(deadline - Date.now());
        continue;
      }
      const wait = idleMs - (Date.now() - this.lastEndedAt);
      if (wait <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, deadline - Date.now())));
    }
  }

  private noneInFlight(maxWaitMs: number): Promise<void> {
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
