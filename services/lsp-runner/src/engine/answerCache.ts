// Answers of read-only server requests, shared and remembered. Identical requests in flight share
// one server request; a finished answer is reused while nothing the server knows has changed (the
// session's content epoch: a document opened, changed or closed, a file event, a file renamed or
// deleted), and only if the server was ready when it answered. Stale answers are never served: any
// change moves the epoch and drops the session's answers before the next lookup. Questions answered
// since the last real change are asked again in the background after documents were opened
// (AnswerWarming), so that a question asked a second time is answered from memory.

import { SharedCall } from "@lspmesh/service-kit";
import { RunnerError } from "../errors.js";
import { inheritDeadline } from "../lsp/session/requestDeadline.js";
import {
  AnswerWarming,
  DEFAULT_WARMING,
  type Reask,
  type WarmableSession,
  type WarmingSettings,
} from "./answerWarming.js";

/** What the cache needs of a language session (the rest of WarmableSession only for warming). */
export type CacheableSession = WarmableSession;

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

interface SessionAnswers {
  readonly epoch: number;
  /** Map order is the LRU order. */
  readonly answers: Map<string, unknown>;
  readonly inFlight: Map<string, SharedCall<unknown>>;
}

export class AnswerCache {
  private readonly sessions = new WeakMap<CacheableSession, SessionAnswers>();
  readonly counts: AnswerCacheCounts = { hit: 0, shared: 0, miss: 0 };
  /** Questions asked again in the background after documents were opened (off with the cache). */
  readonly warming: AnswerWarming;

  /**
   * maxPerSession 0 switches the cache off: every request goes to the server. Only the methods in
   * cachedMethods (requests that only read; each LSP feature declares its own) are shared and
   * remembered; none when not given.
   */
  constructor(
    private readonly maxPerSession = MAX_ANSWERS_PER_SESSION,
    private readonly cachedMethods: ReadonlySet<string> = new Set(),
    warming: WarmingSettings = DEFAULT_WARMING,
  ) {
    this.warming = new AnswerWarming(maxPerSession === 0 ? { ...warming, maxAnswers: 0 } : warming);
  }

  /**
   * Follows a session's events: its content moved (a question re-asked is cancelled, the next
   * one asked under the new epoch), or it closed (warming stops). Sessions are also looked at
   * before each re-ask, so a cache told nothing still never keeps a stale answer.
   */
  sessionEvent(event: { type: string; session: CacheableSession }): void {
    if (event.type === "content") this.warming.contentMoved(event.session);
    else if (event.type === "closed") this.warming.closed(event.session);
  }

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
    if (this.maxPerSession === 0) return (await ask(signal)).value;
    if (!this.cachedMethods.has(method))
      return this.inForeground(session, undefined, async () => (await ask(signal)).value);
    return this.cachedAnswer(session, `${method}\n${JSON.stringify(params)}`, method, ask, signal);
  }

  /** A caller's request to the server: a question re-asked meanwhile gives way (unless it is `key`). */
  private async inForeground<T>(
    session: CacheableSession,
    key: string | undefined,
    work: () => Promise<T>,
  ): Promise<T> {
    const warming = this.warming.of(session);
    warming?.foregroundStarted(key);
    try {
      return await work();
    } finally {
      warming?.foregroundEnded();
    }
  }

  private async cachedAnswer<R>(
    session: CacheableSession,
    key: string,
    method: string,
    ask: (signal: AbortSignal | undefined) => Promise<ServerAnswer<R>>,
    signal: AbortSignal | undefined,
  ): Promise<R> {
    const entry = this.answersOf(session);
    if (session.state === "ready" && entry.answers.has(key)) {
      const value = entry.answers.get(key);
      entry.answers.delete(key);
      entry.answers.set(key, value);
      this.counts.hit++;
      return copyJson(value) as R;
    }
    return this.inForeground(session, key, async () => {
      const pending = entry.inFlight.get(key);
      if (pending) {
        this.counts.shared++;
        return copyJson(await pending.join(signal)) as R;
      }
      this.counts.miss++;
      const flight = this.ask(session, entry, key, method, ask, {
        caller: signal,
        reask: session.language?.uncancelledMethods?.includes(method)
          ? undefined
          : this.reaskOf(session, key, method, ask),
      });
      entry.inFlight.set(key, flight);
      return (await flight.join(signal)) as R;
    });
  }

  /** Asks `key` again under the session's current epoch, in the background (AnswerWarming). */
  private reaskOf<R>(
    session: CacheableSession,
    key: string,
    method: string,
    ask: (signal: AbortSignal | undefined) => Promise<ServerAnswer<R>>,
  ): Reask {
    return async (background) => {
      const entry = this.answersOf(session);
      if (entry.answers.has(key) || entry.inFlight.has(key)) return "answered";
      const flight = this.ask(session, entry, key, method, ask, { background });
      entry.inFlight.set(key, flight);
      await flight.settled;
      return entry.answers.has(key) && this.sessions.get(session) === entry ? "stored" : "dropped";
    };
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
    /** A caller's signal (its deadline is kept), or a re-ask's (cancels it while no caller joined). */
    how: { caller?: AbortSignal | undefined; reask?: Reask; background?: AbortSignal },
  ): SharedCall<unknown> {
    const forgetFlight = () => {
      if (entry.inFlight.get(key) === flight) entry.inFlight.delete(key);
    };
    const store = ({ value, askedWhileReady }: ServerAnswer<unknown>) => {
      forgetFlight();
      if (askedWhileReady && session.state === "ready" && session.contentEpoch === entry.epoch) {
        entry.answers.set(key, copyJson(value));
        if (entry.answers.size > this.maxPerSession) entry.answers.delete(entry.answers.keys().next().value as string);
        if (how.reask) this.warming.of(session)?.remember(key, how.reask);
      }
      return value;
    };
    const flight: SharedCall<unknown> = new SharedCall(
      (signal) => {
        const deadlineOf = how.caller ?? how.background;
        if (deadlineOf) inheritDeadline(deadlineOf, signal);
        return ask(signal).then(store, (error: unknown) => {
          forgetFlight();
          throw error;
        });
      },
      // Given up by every joiner: a later caller must ask afresh, not join a cancelled request.
      { cancelled: () => new RunnerError("TIMEOUT", `${method} was cancelled by the caller`), abandoned: forgetFlight },
    );
    how.background?.addEventListener("abort", () => flight.abandonIfUnjoined(how.background?.reason), { once: true });
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
