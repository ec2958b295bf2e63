// Answers of read-only server requests, shared and remembered. Identical requests in flight share
// one server request; a finished answer is reused while nothing the server knows has changed (the
// session's content epoch: a document opened, changed or closed, a file event, a file renamed or
// deleted), and only if the server was ready when it answered. Stale answers are never served: any
// change moves the epoch and drops the session's answers before the next lookup.

import { RunnerError } from "../errors.js";
import { inheritDeadline } from "../lsp/session/requestDeadline.js";

/** What the cache needs of a language session. */
export interface CacheableSession {
  readonly contentEpoch: number;
  readonly state: string;
}

/** Answers kept per session (least recently used dropped first; default 2 000). */
export const MAX_ANSWERS_PER_SESSION = 2_000;

/** How requests were answered: from the cache, by joining one in flight, or by the server. */
export interface AnswerCacheCounts {
  hit: number;
  shared: number;
  miss: number;
}

/** A server's answer, and whether it was given by a ready server (only those are kept). */
export interface ServerAnswer<R> {
  value: R;
  askedWhileReady: boolean;
}

interface InFlight {
  join(signal: AbortSignal | undefined): Promise<unknown>;
}

interface SessionAnswers {
  readonly epoch: number;
  /** Map order is the LRU order. */
  readonly answers: Map<string, unknown>;
  readonly inFlight: Map<string, InFlight>;
}

export class AnswerCache {
  private readonly sessions = new WeakMap<CacheableSession, SessionAnswers>();
  readonly counts: AnswerCacheCounts = { hit: 0, shared: 0, miss: 0 };

  /**
   * maxPerSession 0 switches the cache off: every request goes to the server. Only the methods in
   * cachedMethods (requests that only read; each LSP feature declares its own) are shared and
   * remembered; none when not given.
   */
  constructor(
    private readonly maxPerSession = MAX_ANSWERS_PER_SESSION,
    private readonly cachedMethods: ReadonlySet<string> = new Set(),
  ) {}

  /**
   * The answer to `method(params)`: remembered, shared with an identical request in flight, or
   * asked with `ask`. Every caller gets its own copy (callers may change what they get).
   */
  async answer<R>(
    session: CacheableSession,
    method: string,
    params: unknown,
    ask: (signal: AbortSignal | undefined) => Promise<ServerAnswer<R>>,
    signal?: AbortSignal,
  ): Promise<R> {
    if (this.maxPerSession === 0 || !this.cachedMethods.has(method)) return (await ask(signal)).value;
    const key = `${method}\n${JSON.stringify(params)}`;
    const entry = this.answersOf(session);
    if (session.state === "ready" && entry.answers.has(key)) {
      const value = entry.answers.get(key);
      entry.answers.delete(key);
      entry.answers.set(key, value);
      this.counts.hit++;
      return copyJson(value) as R;
    }
    const pending = entry.inFlight.get(key);
    if (pending) {
      this.counts.shared++;
      return copyJson(await pending.join(signal)) as R;
    }
    this.counts.miss++;
    const flight = this.ask(session, entry, key, method, ask, signal);
    entry.inFlight.set(key, flight);
    return (await flight.join(signal)) as R;
  }

  /** The session's answers, emptied when its epoch moved since they were given. */
  private answersOf(session: CacheableSession): SessionAnswers {
    const known = this.sessions.get(session);
    if (known && known.epoch === session.contentEpoch) return known;
    const fresh: SessionAnswers = { epoch: session.contentEpoch, answers: new Map(), inFlight: new Map() };
    this.sessions.set(session, fresh);
    return fresh;
  }

  /**
   * One server request shared by its joiners: cancelled only once every joiner gave up, with the
   * first joiner's deadline. Its answer is kept if the server was ready when asked and still is, and
   * the epoch did not move meanwhile.
   */
  private ask(
    session: CacheableSession,
    entry: SessionAnswers,
    key: string,
    method: string,
    ask: (signal: AbortSignal) => Promise<ServerAnswer<unknown>>,
    callerSignal: AbortSignal | undefined,
  ): InFlight {
    const cancel = new AbortController();
    if (callerSignal) inheritDeadline(callerSignal, cancel.signal);
    let joined = 0;
    const answer = ask(cancel.signal).then(
      ({ value, askedWhileReady }) => {
        if (entry.inFlight.get(key) === flight) entry.inFlight.delete(key);
        if (askedWhileReady && session.state === "ready" && session.contentEpoch === entry.epoch) {
          entry.answers.set(key, copyJson(value));
          if (entry.answers.size > this.maxPerSession)
            entry.answers.delete(entry.answers.keys().next().value as string);
        }
        return value;
      },
      (error: unknown) => {
        if (entry.inFlight.get(key) === flight) entry.inFlight.delete(key);
        throw error;
      },
    );
    answer.catch(() => {});
    const flight: InFlight = {
      join: (signal) => {
        joined++;
        if (!signal) return answer;
        return new Promise((resolve, reject) => {
          const onAbort = () => {
            if (--joined === 0) {
              // Given up by every joiner: a later caller must ask afresh, not join a cancelled request.
              if (entry.inFlight.get(key) === flight) entry.inFlight.delete(key);
              cancel.abort(signal.reason);
            }
            reject(new RunnerError("TIMEOUT", `${method} was cancelled by the caller`));
          };
          if (signal.aborted) return onAbort();
          signal.addEventListener("abort", onAbort, { once: true });
          answer.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
        });
      },
    };
    return flight;
  }
}

/**
 * A deep copy of a JSON value (what a language server answers: objects, arrays, strings, numbers,
 * booleans, null). Several times cheaper than structuredClone for answers of a few locations.
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyJson((value as Record<string, unknown>)[key]);
  return copy as T;
}
