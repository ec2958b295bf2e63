// Some runner counters are sums over what is live now (the restarts of the running language
// servers, the answer counts of the running tenant workers): they fall when a session or a worker
// goes away, and a falling counter reads as a reset, which rate() and increase() take as that many
// new events. These totals only grow: each key adds the rises of its live sum and ignores its falls
// (a lower bound when one session stops in the same scrape as another counts up).
export class MonotonicTotals {
  private readonly shown = new Map<string, { live: number; total: number }>();

  /** The totals after this reading of the live sums; a key seen before stays, at its total. */
  update(live: ReadonlyMap<string, number>): Map<string, number> {
    for (const key of live.keys()) if (!this.shown.has(key)) this.shown.set(key, { live: 0, total: 0 });
    const totals = new Map<string, number>();
    for (const [key, shown] of this.shown) {
      const now = live.get(key) ?? 0;
      shown.total += Math.max(0, now - shown.live);
      shown.live = now;
      totals.set(key, shown.total);
    }
    return totals;
  }
}
