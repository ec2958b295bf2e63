// Keeps remembered answers warm while documents are opened. Opening a document moves a session's
// content epoch (AnswerCache drops every answer), although a document opened as it is on disk
// changes nothing the server answers: so the questions answered since the last real change are
// asked again in the background, one at a time, only while the session has no other request, and
// their answers are kept for the epoch they were asked in (the cache's own rule). A real change (a
// document changed or closed, a file event) forgets them and stops the re-asking; a caller's
// request cancels the one re-asked (unless it asks the same question: then it joins it), and so
// does any move of the epoch. Closing the session stops everything.

import { withDeadline } from "../lsp/session/requestDeadline.js";

/** What warming reads of a language session (LanguageSession has all of it). */
export interface WarmableSession {
  readonly contentEpoch: number;
  readonly state: string;
  /** Moves with every change of content, not when documents are opened as they are on disk. */
  readonly contentChanges?: number;
  readonly isAlive?: boolean;
  /** Requests, syncs or waits under way (a re-ask in flight included). */
  readonly isBusy?: boolean;
  /**
   * Methods the server must never be told to cancel (pyright's references): not asked again in
   * the background, since a re-ask given up for a caller would still run to its end on the server.
   */
  readonly language?: { readonly uncancelledMethods?: readonly string[] };
}

export interface WarmingSettings {
  /** Questions kept per session to be asked again (the latest ones); 0 switches warming off. */
  maxAnswers: number;
  /** How long a session must be without requests before a question is asked again, ms. */
  idleMs: number;
}

/** 256 questions per session, re-asked 5 ms after the session's last request ended. */
export const DEFAULT_WARMING: WarmingSettings = { maxAnswers: 256, idleMs: 5 };

/** How often a busy or not yet ready session is looked at again, ms. */
const RETRY_MS = 25;
/**
 * Deadline of one re-ask, ms: shorter than a language's request timeout, so that a re-ask the
 * server does not answer in time never counts toward the session's timeouts (health).
 */
const REASK_DEADLINE_MS = 10_000;
/** Re-asks of one question per epoch: again when one was cancelled or answered by a server not ready. */
const MAX_TRIES = 2;

/** Re-asks: asked, answers kept, given up (cancelled, failed, or answered for an epoch gone by). */
export interface WarmingCounts {
  asked: number;
  stored: number;
  dropped: number;
}

/**
 * Asks a question again under the session's current epoch: "stored" when its answer was kept,
 * "dropped" when not (the epoch moved, the server was not ready), "answered" when it already was.
 */
export type Reask = (signal: AbortSignal) => Promise<"stored" | "dropped" | "answered">;

/** LSPMESH_ANSWER_WARMING: "0"/"off" = off, a number = questions kept per session, unset = default. */
export function answerWarmingSetting(env: Readonly<Record<string, string | undefined>>): WarmingSettings {
  const value = env.LSPMESH_ANSWER_WARMING?.trim();
  if (value === undefined || value === "") return DEFAULT_WARMING;
  if (value === "off") return { ...DEFAULT_WARMING, maxAnswers: 0 };
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0 || count > 100_000)
    throw new Error(`LSPMESH_ANSWER_WARMING must be off or a whole number from 0 to 100000, not '${value}'`);
  return { ...DEFAULT_WARMING, maxAnswers: count };
}

export class AnswerWarming {
  readonly counts: WarmingCounts = { asked: 0, stored: 0, dropped: 0 };
  private readonly sessions = new WeakMap<WarmableSession, SessionWarming>();

  constructor(readonly settings: WarmingSettings = DEFAULT_WARMING) {}

  get enabled(): boolean {
    return this.settings.maxAnswers > 0;
  }

  /** The session's warming (created when `create`); undefined when warming is off. */
  of(session: WarmableSession, create = true): SessionWarming | undefined {
    if (!this.enabled) return undefined;
    let warming = this.sessions.get(session);
    if (!warming && create) {
      warming = new SessionWarming(session, this.settings, this.counts);
      this.sessions.set(session, warming);
    }
    return warming;
  }

  /** The session's content moved (an event of the session): the question re-asked is cancelled. */
  contentMoved(session: WarmableSession): void {
    this.of(session, false)?.contentMoved();
  }

  /** The session closed: nothing more is asked, no timer is left. Idempotent. */
  closed(session: WarmableSession): void {
    this.of(session, false)?.close();
    this.sessions.delete(session);
  }
}

export class SessionWarming {
  /** Question → how to ask it again; Map order: least recently answered first. */
  private readonly questions = new Map<string, Reask>();
  /** session.contentChanges the questions were answered under. */
  private changes: number | undefined;
  /** The epoch `tried` belongs to: each question is re-asked at most MAX_TRIES times per epoch. */
  private epoch = -1;
  private readonly tried = new Map<string, number>();
  private foreground = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: { key: string; abort: AbortController } | undefined;
  private closed = false;

  constructor(
    private readonly session: WarmableSession,
    private readonly settings: WarmingSettings,
    private readonly counts: WarmingCounts,
  ) {}

  /** Questions waiting or re-asked (for tests and status). */
  get size(): number {
    return this.questions.size;
  }

  /** Whether a question is being asked again or about to be (a timer is set). */
  get active(): boolean {
    return this.running !== undefined || this.timer !== undefined;
  }

  /** A caller's answer was kept: its question is asked again after documents are opened. */
  remember(key: string, reask: Reask): void {
    if (this.closed) return;
    this.followChanges();
    this.questions.delete(key);
    this.questions.set(key, reask);
    while (this.questions.size > this.settings.maxAnswers) this.questions.delete(this.questions.keys().next().value!);
  }

  /** A caller's request starts: a re-ask of another question is cancelled, none starts meanwhile. */
  foregroundStarted(key: string | undefined): void {
    this.foreground++;
    this.clearTimer();
    if (this.running && this.running.key !== key) this.cancelRunning();
  }

  foregroundEnded(): void {
    this.foreground = Math.max(0, this.foreground - 1);
    if (this.foreground === 0) this.schedule(this.settings.idleMs);
  }

  contentMoved(): void {
    this.cancelRunning();
    this.followChanges();
    this.schedule(this.settings.idleMs);
  }

  close(): void {
    this.closed = true;
    this.cancelRunning();
    this.clearTimer();
    this.questions.clear();
  }

  /** A real change (not only documents opened) since the questions were answered forgets them. */
  private followChanges(): void {
    const now = this.session.contentChanges ?? 0;
    if (this.changes === now) return;
    this.changes = now;
    this.questions.clear();
    this.cancelRunning();
  }

  private schedule(ms: number): void {
    if (this.closed || this.timer || this.running || this.foreground > 0 || this.questions.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.step();
    }, ms);
    this.timer.unref?.();
  }

  /** Asks the next question not answered under the current epoch, if the session is idle. */
  private step(): void {
    if (this.closed || this.foreground > 0 || this.running) return;
    if (this.session.isAlive === false) {
      this.close();
      return;
    }
    this.followChanges();
    if (this.session.isBusy || this.session.state !== "ready") {
      this.schedule(RETRY_MS);
      return;
    }
    if (this.session.contentEpoch !== this.epoch) {
      this.epoch = this.session.contentEpoch;
      this.tried.clear();
    }
    const next = [...this.questions.entries()].find(([key]) => (this.tried.get(key) ?? 0) < MAX_TRIES);
    if (!next) return;
    const [key, reask] = next;
    this.tried.set(key, (this.tried.get(key) ?? 0) + 1);
    const abort = new AbortController();
    this.running = { key, abort };
    reask(withDeadline(abort.signal, REASK_DEADLINE_MS))
      .then(
        (outcome) => {
          if (outcome === "answered" || outcome === "stored") this.tried.set(key, MAX_TRIES);
          if (outcome === "answered") return;
          this.counts.asked++;
          this.counts[outcome]++;
        },
        () => {
          this.counts.asked++;
          this.counts.dropped++;
        },
      )
      .finally(() => {
        if (this.running?.abort === abort) this.running = undefined;
        this.schedule(0);
      });
  }

  private cancelRunning(): void {
    const running = this.running;
    this.running = undefined;
    running?.abort.abort(new Error("a re-asked question gave way"));
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
