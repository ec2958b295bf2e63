// A bounded outbox keeping the latest value per key, oldest key first: while the backbone is
// away a file's newer diagnostics replace its older ones, and when full the file waiting
// longest is dropped.

export class LatestPerKeyQueue<V> {
  private readonly entries = new Map<string, V>();
  private droppedCount = 0;

  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new Error("queue limit must be at least 1");
  }

  get size(): number {
    return this.entries.size;
  }

  /** Values dropped because the queue was full. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Queues value as key's latest, behind every other key; drops the oldest key when full. */
  put(key: string, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.droppedCount++;
    }
    this.entries.set(key, value);
  }

  /** Puts a value back after a failed delivery, unless a newer one was queued meanwhile. */
  restore(key: string, value: V): void {
    if (!this.entries.has(key)) this.put(key, value);
  }

  /** Takes the oldest key's value out of the queue. */
  shift(): [string, V] | undefined {
    const first = this.entries.entries().next();
    if (first.done) return undefined;
    this.entries.delete(first.value[0]);
    return first.value;
  }
}
