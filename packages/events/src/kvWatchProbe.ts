// A KV watch that notices when its consumer is lost with a NATS node. A watch reads through an
// ordered consumer, which JetStream keeps on one server only (R1, in memory, whatever the bucket's
// replicas): when that server dies the client notices only after two missed idle heartbeats of
// 30 s — a minute in which a gateway sees no registry heartbeat and judges every runner dead. So
// the consumer is asked for every probeMs; when it is not found, or does not answer twice in a
// row, the watch is stopped and its follower (KvFollower) watches again, replaying the current
// values (the new consumer lands on a live server).
import type { KV, KvWatchEntry, KvWatchOptions } from "@nats-io/kv";
import type { QueuedIterator } from "@nats-io/transport-node";

/** How often the watch's consumer is asked for, ms (default 2 000). */
export const KV_WATCH_PROBE_MS = 2_000;
/** How long an answer is waited for, ms (default 2 000). */
const PROBE_TIMEOUT_MS = 2_000;

type ProbedConsumer = { info(cached?: boolean): Promise<unknown> };

/** kv.watch(options), stopped when its consumer is lost (see above). */
export async function probedKvWatch(
  kv: KV,
  options: KvWatchOptions,
  probeMs = KV_WATCH_PROBE_MS,
): Promise<QueuedIterator<KvWatchEntry>> {
  const watch = await kv.watch(options);
  // The client keeps the watch's push consumer here, and a promise of its end (not in its typed API).
  const consumer = (watch as unknown as { _data?: ProbedConsumer })._data;
  if (typeof consumer?.info !== "function") return watch;
  let misses = 0;
  let probing = false;
  const probe = async () => {
    if (probing) return;
    probing = true;
    try {
      await answerWithin(consumer.info(false), PROBE_TIMEOUT_MS);
      misses = 0;
    } catch (error) {
      misses += /not found/i.test(String(error)) ? 2 : 1;
      if (misses >= 2) watch.stop();
    } finally {
      probing = false;
    }
  };
  const timer = setInterval(() => void probe(), probeMs);
  timer.unref();
  const stop = watch.stop.bind(watch);
  watch.stop = (error?: Error) => {
    clearInterval(timer);
    stop(error);
  };
  void (watch as unknown as { iterClosed?: Promise<unknown> }).iterClosed?.then(() => clearInterval(timer));
  return watch;
}

/** The promise's value, or a rejection after ms (the timer does not outlive it). */
async function answerWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
