// Waiting for something with a bound: shutdowns that must not hang on a stuck peer, a call that
// goes on without an answer that is late. The timer and the abort listener never outlive the wait.

/**
 * `work`'s value, or undefined once `ms` have passed or `signal` aborted, whichever comes first
 * (the work itself goes on, unwatched). A rejection of `work` within the time is passed on.
 */
export async function waitAtMost<T>(
  work: Promise<T> | undefined,
  ms: number,
  signal?: AbortSignal,
): Promise<T | undefined> {
  if (work === undefined || signal?.aborted) return undefined;
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const gaveUp = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
    onAbort = () => resolve(undefined);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, gaveUp]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
