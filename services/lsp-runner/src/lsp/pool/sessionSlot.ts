// The place of one (tenant, workspace, language) in the runner across server restarts: the current
// session, when a failed server may be started again (restartBudget.ts), how often it was, and
// whether it is `failed` for now. Sessions stopped to save resources restart on the next use
// without counting as failures; a restart the caller asks for (restart()) is counted among the
// restarts but never as a failure.

import { setTimeout as sleep } from "node:timers/promises";
import type { Message } from "vscode-jsonrpc/node.js";
import type { ClientCapabilities } from "vscode-languageserver-protocol";
import { RunnerError } from "../../errors.js";
import { deletedWorkspace } from "../../workspace/workspaceLocator.js";
import type { LanguageServerConfig } from "../languages/languageRegistry.js";
import type { SessionEvent } from "../session/languageSession.js";
import { LanguageSession, type SessionFailure } from "../session/languageSession.js";
import type { ServerStateName } from "../session/sessionState.js";
import { RestartBudget } from "./restartBudget.js";
import type { SessionPolicy } from "./sessionPolicy.js";

/** Longest restart backoff a request waits out before it is answered UNAVAILABLE instead, ms (5 000). */
const MAX_RESTART_WAIT_MS = 5_000;

export interface SessionKey {
  tenant: string;
  workspace: string;
  /** Real path of the workspace root. */
  root: string;
}

/**
 * Why a session was stopped by the runner rather than failing on its own ("deleted": its workspace
 * was deleted in the control plane).
 */
export type StopReason = "idle" | "memory" | "tenant-limit" | "shutdown" | "restart" | "deleted";

/** A lifecycle change, for logs and status events. */
export interface LifecycleEvent {
  kind: "started" | "failed" | "stopped";
  tenant: string;
  workspace: string;
  language: string;
  /** The slot's state after the change (none after a stop: no server runs). */
  state?: ServerStateName;
  /** The server's pid (= its process group), when it had one. */
  pid?: number;
  /** Failure reason (with stderr tail) or stop reason. */
  reason?: string;
}

export interface SlotStatus {
  language: string;
  state: ServerStateName;
  server: string;
  progress: string;
  lastError: string;
  /** Starts that followed a failure of the server (crash, hang, protocol error) or a requested restart. */
  restarts: number;
  openDocuments: number;
}

export interface SlotContext {
  key: SessionKey;
  language: LanguageServerConfig;
  policy: SessionPolicy;
  maxFileBytes?: number;
  /** What servers are told the runner can do (default: what the session itself relies on). */
  clientCapabilities?: ClientCapabilities;
  onLog?: (line: string) => void;
  /** Session events (state changes, diagnostics, close) for the event backbone. */
  onEvent?: (event: SessionEvent) => void;
  onOutgoing?: (message: Message) => void;
  onLifecycleEvent?: (event: LifecycleEvent) => void;
  /** Keeps a closing session's shutdown so that the manager's close() can await it. */
  track: (closing: Promise<void>) => void;
}

/** What a requested restart did (SessionSlot.restart). */
export interface SlotRestart {
  /** The new session (started, handshake done; maybe still loading). */
  session: LanguageSession;
  /** A server was running (or starting) and was stopped; false: one was only started. */
  wasRunning: boolean;
  /** URIs of the documents the stopped server had open, least recently used first. */
  previousDocuments: string[];
}

export class SessionSlot {
  private session: LanguageSession | undefined;
  private starting: Promise<LanguageSession> | undefined;
  /** A requested restart under way: a second request joins it. */
  private restarting: Promise<SlotRestart> | undefined;
  private readonly budget: RestartBudget;
  private lastFailure: { at: number; describe: () => string } | undefined;
  private lastUsedAt = Date.now();
  private closed = false;
  /** Why the slot was closed, when not for a shutdown. */
  private closedFor: StopReason | undefined;
  /** Starts that followed a failure. */
  private restartCount = 0;
  /** A server failed and its replacement has not been started yet. */
  private restartPending = false;

  constructor(private readonly context: SlotContext) {
    this.budget = new RestartBudget(context.policy.restart);
  }

  /** The running session, started (or restarted after backoff) when needed. */
  async acquire(signal?: AbortSignal): Promise<LanguageSession> {
    for (;;) {
      this.assertOpen();
      this.lastUsedAt = Date.now();
      const current = this.session;
      if (current) {
        // A request just timed out: wait for the verdict on whether the server is still there.
        if (current.livenessCheck) {
          await current.livenessCheck;
          continue;
        }
        if (current.isAlive) {
          current.lastUsed = Date.now();
          return current;
        }
        this.retire(current);
        continue;
      }
      if (this.starting) return this.starting;
      const gate = this.budget.gate(Date.now());
      if (gate.kind === "failed") throw this.failedError(gate.retryAt);
      if (gate.kind === "wait") {
        // A long backoff is not waited out inside a request: another runner may answer sooner.
        if (gate.ms > MAX_RESTART_WAIT_MS) throw this.restartingError(gate.ms);
        await sleep(gate.ms, undefined, { signal }).catch(() => {
          throw new RunnerError(
            "TIMEOUT",
            `the request was cancelled while the ${this.languageId} server was restarting`,
          );
        });
        continue;
      }
      const starting = this.start();
      this.starting = starting;
      try {
        return await starting;
      } catch (error) {
        const after = this.budget.gate(Date.now());
        if (after.kind === "failed") throw this.failedError(after.retryAt);
        throw error;
      } finally {
        if (this.starting === starting) this.starting = undefined;
      }
    }
  }

  private async start(): Promise<LanguageSession> {
    const { key, language, policy } = this.context;
    if (this.restartPending) this.restartCount++;
    this.restartPending = false;
    if (language.sandbox === "bwrap" && !policy.sandbox)
      throw new RunnerError(
        "SERVER_FAILED",
        `the ${language.id} server must run sandboxed (sandbox: "bwrap" in the languages file) and this runner has no working bubblewrap; install it or run this language on a runner that has it`,
      );
    const session = await LanguageSession.start({
      language,
      root: key.root,
      maxFileBytes: this.context.maxFileBytes,
      maxOpenDocuments: policy.maxOpenDocuments,
      maxMessageBytes: policy.maxMessageBytes,
      probeTimeoutMs: policy.probeTimeoutMs,
      maxConsecutiveTimeouts: policy.maxConsecutiveTimeouts,
      restartStoppedServers: policy.restartStoppedServers,
      maxBusyMs: policy.maxBusyMs,
      limits: policy.limits,
      parentWatchdog: policy.parentWatchdog,
      ...(policy.sandbox ? { sandbox: policy.sandbox } : {}),
      clientCapabilities: this.context.clientCapabilities,
      onLog: this.context.onLog,
      onEvent: this.context.onEvent,
      onOutgoing: this.context.onOutgoing,
      onFailure: (failure, failed) => this.onFailure(failure, failed),
    });
    if (this.closed) {
      await session.close();
      this.assertOpen();
    }
    this.budget.recovered();
    this.session = session;
    this.emit("started", { pid: session.pid });
    return session;
  }

  private onFailure(failure: SessionFailure, session: LanguageSession): void {
    const now = Date.now();
    const exhausted = this.budget.recordFailure(now);
    this.restartPending = true;
    this.lastFailure = { at: now, describe: () => session.lastError || failure.reason };
    if (this.session === session) this.retire(session);
    else this.context.track(session.close());
    this.emit("failed", { pid: session.pid, reason: `${exhausted ? "failed for now: " : ""}${session.lastError}` });
  }

  /** Forgets a session that can no longer be used and lets it shut down in the background. */
  private retire(session: LanguageSession): void {
    if (this.session === session) this.session = undefined;
    this.context.track(session.close());
  }

  /**
   * Stops the running server (busy or not: its calls fail) and starts a new one at once, even
   * during a backoff or a `failed` cool-down: the caller asked for it, so it is not a failure and
   * charges nothing to the restart budget, but it is counted in `restarts` (when a server ran, or
   * one had failed). A start failing is a failure like any other. Resolves once the new server
   * completed its handshake; a restart already under way is joined.
   */
  restart(): Promise<SlotRestart> {
    this.assertOpen();
    this.restarting ??= this.replaceSession().finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }

  private async replaceSession(): Promise<SlotRestart> {
    // A start under way is let finish: its server is the one replaced.
    while (this.starting) await this.starting.catch(() => undefined);
    this.assertOpen();
    const old = this.session;
    const wasRunning = old !== undefined;
    const previousDocuments = old?.openDocuments().map((document) => document.uri) ?? [];
    if (wasRunning) this.restartPending = true;
    this.lastUsedAt = Date.now();
    // Set before anything is awaited: requests arriving meanwhile wait for the new server.
    const starting = (async () => {
      if (old) {
        this.session = undefined;
        const closing = old.close();
        this.context.track(closing);
        this.emit("stopped", { pid: old.pid, reason: "restart" });
        // The old server is gone before the new one starts: servers that lock their workspace
        // (an index, a build folder) would otherwise fail to start.
        await closing;
      }
      return this.start();
    })();
    this.starting = starting;
    try {
      return { session: await starting, wasRunning, previousDocuments };
    } finally {
      if (this.starting === starting) this.starting = undefined;
    }
  }

  /** Stops the session to free resources, unless it is busy; true when it was stopped. */
  stop(reason: StopReason): boolean {
    const session = this.session;
    if (!session || session.isBusy) return false;
    this.retire(session);
    this.emit("stopped", { pid: session.pid, reason });
    return true;
  }

  /**
   * Stops everything for good: runner shutdown, or `reason` (reported as a stop when a server ran
   * or was starting). Resolves once the server's processes are gone. True when one ran or started.
   */
  async close(reason?: StopReason): Promise<boolean> {
    this.closed = true;
    this.closedFor ??= reason;
    const session = this.session;
    this.session = undefined;
    const starting = this.starting?.catch(() => undefined);
    if (reason && (session || starting)) this.emit("stopped", { pid: session?.pid, reason });
    await Promise.all([session?.close(), starting?.then((s) => s?.close())]);
    return session !== undefined || starting !== undefined;
  }

  get languageId(): string {
    return this.context.language.id;
  }

  get language(): LanguageServerConfig {
    return this.context.language;
  }

  /** The running session, if any (no start). */
  get current(): LanguageSession | undefined {
    return this.session?.isAlive ? this.session : undefined;
  }

  /** A server is being started (not yet answering). */
  get isStarting(): boolean {
    return this.starting !== undefined;
  }

  get lastUsed(): number {
    return Math.max(this.lastUsedAt, this.session?.lastUsed ?? 0);
  }

  get restarts(): number {
    return this.restartCount;
  }

  /** Nothing running and nothing to remember: the slot can be dropped. */
  get isForgettable(): boolean {
    return !this.session && !this.starting && this.budget.recentFailures(Date.now()) === 0;
  }

  /** What workspace_status shows; undefined when no server runs and none failed recently. */
  status(): SlotStatus | undefined {
    const now = Date.now();
    const session = this.session;
    const base = {
      language: this.languageId,
      server: session?.serverName ?? "",
      progress: session?.progress.summary() ?? "",
      restarts: this.restartCount,
      openDocuments: session?.openDocumentCount ?? 0,
    };
    const failure = this.lastFailure;
    const recentFailure = failure && now - failure.at < this.context.policy.degradedAfterFailureMs;
    if (this.budget.isFailed(now)) {
      return { ...base, state: "failed", lastError: failure?.describe() ?? "" };
    }
    if (session) {
      const state = session.state === "ready" && recentFailure ? "degraded" : session.state;
      return { ...base, state, lastError: recentFailure ? failure.describe() : degradedReason(session, state) };
    }
    if (this.starting) return { ...base, state: "starting", lastError: failure?.describe() ?? "" };
    if (failure && this.budget.recentFailures(now) > 0) {
      // Failed and not yet restarted: the next request restarts it.
      return { ...base, state: "degraded", lastError: `${failure.describe()}; restarts on the next request` };
    }
    return undefined;
  }

  private restartingError(waitMs: number): RunnerError {
    return new RunnerError(
      "UNAVAILABLE",
      `the ${this.languageId} language server failed ${this.budget.recentFailures(Date.now())} times recently (last: ${this.lastFailure?.describe() ?? "unknown"}); it is restarted in ${Math.ceil(waitMs / 1000)} s — retry then`,
    );
  }

  private failedError(retryAt: number): RunnerError {
    const { restart } = this.context.policy;
    const seconds = Math.max(1, Math.ceil((retryAt - Date.now()) / 1000));
    return new RunnerError(
      "SERVER_FAILED",
      `the ${this.languageId} language server keeps failing (${this.budget.recentFailures(Date.now())} failures within ${Math.round(restart.windowMs / 1000)} s; last: ${this.lastFailure?.describe() ?? "unknown"}); it is tried again in ${seconds} s — check the server's installation and configuration`,
    );
  }

  private assertOpen(): void {
    if (this.closedFor === "deleted") throw deletedWorkspace(this.context.key.tenant, this.context.key.workspace);
    if (this.closed) {
      throw new RunnerError("UNAVAILABLE", "the runner is shutting down; retry on another runner");
    }
  }

  private emit(kind: LifecycleEvent["kind"], details: { pid?: number; reason?: string }): void {
    const { key } = this.context;
    this.context.onLifecycleEvent?.({
      kind,
      tenant: key.tenant,
      workspace: key.workspace,
      language: this.languageId,
      state: kind === "stopped" ? undefined : this.status()?.state,
      ...details,
    });
  }
}

/** Why a session is degraded when no failure says so: the failure its server shows, or a request that timed out. */
function degradedReason(session: LanguageSession, state: ServerStateName): string {
  if (state !== "degraded") return "";
  if (session.progress.failure) return session.incompleteNote ?? "";
  return "a request timed out and the server has not answered one since (busy with a large file, or hung: the liveness probe decides)";
}
