// Read answers remembered at the gateway, so that a repeated question never leaves it. An answer
// is kept when it was complete (a ready server, not partial, nothing skipped) and its workspace's
// version (WorkspaceEpochs) did not move while it was asked; it is served while the version stays,
// after a NATS flush shows every announcement sent before the call was heard. Identical questions
// in flight share one runner call, cancelled only when every caller gave up.
import { SharedCall } from "@lspmesh/service-kit";
import type { WorkspaceEpochs } from "./workspaceEpochs.js";

/** Answers kept (least recently used dropped first; default 10 000). */
export const DEFAULT_GATEWAY_ANSWERS = 10_000;

/** How answers were given: remembered, by joining an identical call, or by a runner. */
export interface GatewayAnswerCounts {
  hit: number;
  shared: number;
  miss: number;
}

/** One question: its key (the method and request, tenant and workspace included) and where it goes. */
export interface Question<T> {
  key: string;
  tenant: string;
  workspace: string;
  /** The runner it is sent to (only runners heard announcing for the workspace are remembered). */
  runner: string;
  /** The caller's cancellation. */
  signal?: AbortSignal | undefined;
  /** Asks the runner; the signal is aborted once every caller gave up. */
  ask(signal: AbortSignal): Promise<T>;
  /** The answer is complete and may be kept. */
  keep(answer: T): boolean;
  /** A copy for one caller (callers may change what they get). */
  copy(answer: T): T;
  /** The error a caller that gave up gets. */
  cancelled(): Error;
}

interface Remembered {
  readonly version: number;
  readonly tenant: string;
  readonly workspace: string;
  readonly answer: unknown;
}

export class GatewayAnswerCache {
  private readonly answers = new Map<string, Remembered>();
  private readonly inFlight = new Map<string, SharedCall<unknown>>();
  readonly counts: GatewayAnswerCounts = { hit: 0, shared: 0, miss: 0 };

  constructor(
    private readonly epochs: WorkspaceEpochs,
    private readonly maxAnswers = DEFAULT_GATEWAY_ANSWERS,
  ) {}

  /** Answers remembered now. */
  get size(): number {
    return this.answers.size;
  }

  answer<T>(question: Question<T>): Promise<T> {
    // No await on the way to a runner: identical questions arriving together join one call.
    if (!this.answers.has(question.key)) return this.askOrJoin(question);
    return this.answerRemembered(question);
  }

  private async answerRemembered<T>(question: Question<T>): Promise<T> {
    const remembered = await this.remembered(question);
    if (remembered === undefined) return this.askOrJoin(question);
    this.counts.hit++;
    return question.copy(remembered as T);
  }

  private async askOrJoin<T>(question: Question<T>): Promise<T> {
    const pending = this.inFlight.get(question.key);
    if (pending) {
      this.counts.shared++;
      return question.copy((await pending.join(question.signal)) as T);
    }
    this.counts.miss++;
    const flight = this.ask(question);
    this.inFlight.set(question.key, flight as SharedCall<unknown>);
    return flight.join(question.signal);
  }

  /** Drops every answer about one workspace. */
  forget(tenant: string, workspace: string): void {
    this.epochs.invalidate(tenant, workspace);
  }

  /** Forgets everything and stops following the epochs. Idempotent. */
  async close(): Promise<void> {
    this.answers.clear();
    await this.epochs.close();
  }

  /** A remembered answer still valid once announcements caught up, else undefined. */
  private async remembered<T>(question: Question<T>): Promise<unknown> {
    const entry = this.answers.get(question.key);
    if (!entry) return undefined;
    if (!this.valid(entry)) {
      this.answers.delete(question.key);
      return undefined;
    }
    // Announcements sent before this call (an edit through another gateway) are heard first.
    if (!(await this.epochs.caughtUp()) || !this.valid(entry) || this.answers.get(question.key) !== entry) {
      return undefined;
    }
    this.answers.delete(question.key);
    this.answers.set(question.key, entry);
    return entry.answer;
  }

  private valid(entry: Remembered): boolean {
    return this.epochs.enabled && this.epochs.version(entry.tenant, entry.workspace) === entry.version;
  }

  /**
   * One runner call shared by its joiners, cancelled once every joiner gave up. Its answer is kept
   * if complete, the runner announces for the workspace, and the version did not move meanwhile.
   */
  private ask<T>(question: Question<T>): SharedCall<T> {
    const { key, tenant, workspace } = question;
    const version = this.epochs.enabled ? this.epochs.version(tenant, workspace) : undefined;
    const heard = this.epochs.heardFrom(tenant, workspace, question.runner);
    const forgetFlight = () => {
      if (this.inFlight.get(key) === flight) this.inFlight.delete(key);
    };
    const flight: SharedCall<T> = new SharedCall(
      (signal) =>
        question
          .ask(signal)
          .finally(forgetFlight)
          .then((value) => {
            const unchanged =
              version !== undefined && this.epochs.enabled && this.epochs.version(tenant, workspace) === version;
            if (heard && unchanged && question.keep(value))
              this.remember(key, { version, tenant, workspace, answer: question.copy(value) });
            return value;
          }),
      // Given up by every joiner: a later caller asks afresh rather than join a cancelled call.
      { cancelled: () => question.cancelled(), abandoned: forgetFlight },
    );
    return flight;
  }

  private remember(key: string, entry: Remembered): void {
    this.answers.delete(key);
    this.answers.set(key, entry);
    if (this.answers.size > this.maxAnswers) this.answers.delete(this.answers.keys().next().value as string);
  }
}
