// Waiting for a state the runner reaches asynchronously (a JetStream message, a KV entry, a
// status event, a watcher batch), without timing assertions: the timeout is a generous bound.

/** Reads until accept(value) holds; fails with the last value after timeoutMs (a generous bound, not an assertion). */
export async function waitFor<T>(
  read: () => Promise<T> | T,
  accept: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}; last seen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
