// The one way tests wait for a state reached asynchronously (a JetStream message, a KV entry, a
// status event, a process gone, a file written): poll a condition, never sleep a fixed time. The
// timeout is a generous bound for a slow machine, not an assertion about speed.

export interface WaitOptions {
  /** Give up after this long, in ms (default 20 000). */
  timeoutMs?: number;
  /** Pause between two checks, in ms (default 25). */
  intervalMs?: number;
}

/** What a check returns while the state is not reached yet. */
type NotYet = undefined | null | false;

/**
 * Calls `check` until it returns something other than undefined, null or false, and resolves to
 * that. A check that throws counts as "not yet"; the last error (or value) seen is in the timeout
 * error, which names `what`.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | NotYet | Promise<T | NotYet>,
  options: WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 25 } = options;
  const deadline = Date.now() + timeoutMs;
  let lastSeen = "nothing yet";
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
      lastSeen = `the check returned ${String(value)}`;
    } catch (error) {
      lastSeen = `the check failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}; ${lastSeen}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
