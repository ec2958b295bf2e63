// A caller's deadline rides on the AbortSignal its requests carry, so that every language-server
// request made for it times out early enough for the runner to notice a hung server (probe it,
// restart it) and still answer before the caller gives up.

/** Time kept for the answer to travel back after the probe, in ms (default 1 000). */
export const ANSWER_MARGIN_MS = 1_000;
/** Shortest per-request timeout a deadline can impose, in ms (default 100). */
const MIN_REQUEST_TIMEOUT_MS = 100;

const deadlines = new WeakMap<AbortSignal, number>();

/** Records that work under `signal` must be answered within `remainingMs` (Infinity: no deadline). */
export function withDeadline(signal: AbortSignal, remainingMs: number): AbortSignal {
  if (Number.isFinite(remainingMs)) deadlines.set(signal, Date.now() + remainingMs);
  return signal;
}

/** Gives `to` the deadline recorded for `from`, if any (a request made on behalf of that caller). */
export function inheritDeadline(from: AbortSignal, to: AbortSignal): void {
  const at = deadlines.get(from);
  if (at !== undefined) deadlines.set(to, at);
}

/**
 * The timeout of one server request under `signal`: the language's own, or less when the
 * caller's deadline is nearer — the remaining time minus the liveness probe and ANSWER_MARGIN_MS,
 * and never less than half of the remaining time.
 */
export function requestTimeoutMs(signal: AbortSignal | undefined, languageTimeoutMs: number, probeMs: number): number {
  const at = signal ? deadlines.get(signal) : undefined;
  if (at === undefined) return languageTimeoutMs;
  const remaining = at - Date.now();
  const withRoom = Math.max(remaining / 2, remaining - probeMs - ANSWER_MARGIN_MS);
  return Math.round(Math.max(MIN_REQUEST_TIMEOUT_MS, Math.min(languageTimeoutMs, withRoom)));
}
