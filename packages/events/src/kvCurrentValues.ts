// Every current value of a KV bucket at once: one watch replaying the latest revision of each key
// (deleted and purged keys left out), rather than a get per key.
import type { KV } from "@nats-io/kv";

export async function kvCurrentValues(kv: KV): Promise<Map<string, Uint8Array>> {
  const values = new Map<string, Uint8Array>();
  if ((await kv.status()).values === 0) return values;
  const watch = await kv.watch({ key: ">" });
  try {
    for await (const entry of watch) {
      if (entry.operation === "PUT") values.set(entry.key, entry.value);
      else values.delete(entry.key);
      if ((entry.delta ?? 0) === 0) break;
    }
  } finally {
    watch.stop();
  }
  return values;
}
