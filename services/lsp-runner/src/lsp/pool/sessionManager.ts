// Owns every language-server session of this runner, one per (tenant, workspace, language): starts
// them on first use (or ahead, for a warm-up list), stops idle ones and, past the memory budget,
// the least recently used, and guarantees that closing the manager leaves no language-server
// process behind.

import type { Message } from "vscode-jsonrpc/node.js";
import type { ClientCapabilities } from "vscode-languageserver-protocol";
import { RunnerError } from "../../errors.js";
import type { LanguageServerConfig } from "../languages/languageRegistry.js";
import { groupResidentBytes, processesInGroups } from "../process/processGroups.js";
import { DEFAULT_MAX_FILE_BYTES, type LanguageSession, type SessionEvent } from "../session/languageSession.js";
import { type SessionPolicy, type SessionPolicyOverrides, sessionPolicy } from "./sessionPolicy.js";
import {
  type LifecycleEvent,
  type SessionKey,
  SessionSlot,
  type SlotRestart,
  type SlotStatus,
  type StopReason,
} from "./sessionSlot.js";

export type { LifecycleEvent, SessionKey, SlotRestart, SlotStatus, StopReason };

/** What a requested restart did, with the slot's restart count after it. */
export interface SessionRestart extends SlotRestart {
  /** Restarts of this (tenant, workspace, language) server so far, this one included when it counted. */
  restarts: number;
}

export interface SessionManagerOptions {
  maxFileBytes?: number;
  /** Lifecycle knobs (sessionPolicy.ts); unset ones take their defaults. */
  policy?: SessionPolicyOverrides;
  /** Open documents per session, at most (overrides policy.maxOpenDocuments). */
  maxOpenDocuments?: number;
  /** What servers are told the runner can do: the session's own needs plus every feature's (features/index.ts). */
  clientCapabilities?: ClientCapabilities;
  /** Every session's events (state changes, diagnostics, close), with the session's key. */
  onSessionEvent?: (key: SessionKey & { language: string }, event: SessionEvent) => void;
  onLog?: (entry: { tenant: string; workspace: string; language: string; line: string }) => void;
  /** Lifecycle changes: started, failed, stopped. */
  onLifecycleEvent?: (event: LifecycleEvent) => void;
  /** Every message written to any server (tracing and tests). */
  onOutgoing?: (entry: { tenant: string; workspace: string; language: string; message: Message }) => void;
}

export interface MemoryReport {
  /** Resident bytes of all running servers' process groups together. */
  totalBytes: number;
  sessions: Array<{ tenant: string; workspace: string; language: string; pid: number; bytes: number }>;
}

export class SessionManager {
  readonly policy: SessionPolicy;

  /** Files over this size (bytes) are not sent to language servers. */
  get maxFileBytes(): number {
    return this.options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  private readonly slots = new Map<string, { key: SessionKey; slot: SessionSlot }>();
  private readonly closing = new Set<Promise<void>>();
  private readonly sweeper: NodeJS.Timeout;
  private sweeping: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: SessionManagerOptions = {}) {
    this.policy = sessionPolicy({
      ...options.policy,
      ...(options.maxOpenDocuments !== undefined ? { maxOpenDocuments: options.maxOpenDocuments } : {}),
    });
    this.sweeper = setInterval(() => void this.sweep(), this.policy.sweepIntervalMs);
    this.sweeper.unref();
  }

  /** The live session for the key and language, starting (or restarting) one when needed. */
  async get(key: SessionKey, language: LanguageServerConfig, signal?: AbortSignal): Promise<LanguageSession> {
    if (this.closed) throw new RunnerError("UNAVAILABLE", "the runner is shutting down; retry on another runner");
    this.refuseTenantMixing(key, language);
    await this.admitTenant(key, language);
    return this.slotFor(key, language).acquire(signal);
  }

  /**
   * Stops the key's server of `language` and starts a new one (SessionSlot.restart: not a failure,
   * counted in restarts); with none running, starts one under the same tenant rules as get().
   */
  async restart(key: SessionKey, language: LanguageServerConfig): Promise<SessionRestart> {
    if (this.closed) throw new RunnerError("UNAVAILABLE", "the runner is shutting down; retry on another runner");
    this.refuseTenantMixing(key, language);
    await this.admitTenant(key, language);
    const slot = this.slotFor(key, language);
    const restarted = await slot.restart();
    return { ...restarted, restarts: slot.restarts };
  }

  /**
   * Starts sessions ahead of their first request, one after the other; failures are reported
   * through onLifecycleEvent/onLog and do not stop the others. Resolves when all were tried.
   */
  async warmUp(entries: ReadonlyArray<{ key: SessionKey; language: LanguageServerConfig }>): Promise<void> {
    for (const { key, language } of entries) {
      if (this.closed) return;
      await this.get(key, language).catch((error: Error) =>
        this.options.onLog?.({
          tenant: key.tenant,
          workspace: key.workspace,
          language: language.id,
          line: `warm-up failed: ${error.message}`,
        }),
      );
    }
  }

  /** Running sessions of one workspace. */
  async sessionsOf(tenant: string, workspace: string): Promise<LanguageSession[]> {
    return this.slotsOf(tenant, workspace).flatMap((slot) => (slot.current ? [slot.current] : []));
  }

  /** Per language of one workspace: state, last error and restarts, for workspace_status. */
  statusOf(tenant: string, workspace: string): SlotStatus[] {
    return this.slotsOf(tenant, workspace).flatMap((slot) => slot.status() ?? []);
  }

  /**
   * Running sessions past their start (not starting, not failed), most recently used first, at
   * most `limit`: the registry's `warm` list (handoff).
   */
  warmSessions(limit: number): Array<{ tenant: string; workspace: string; language: string; lastUsed: number }> {
    return [...this.slots.values()]
      .filter(({ slot }) => slot.current && !["starting", "failed"].includes(slot.status()?.state ?? "failed"))
      .map(({ key, slot }) => ({
        tenant: key.tenant,
        workspace: key.workspace,
        language: slot.languageId,
        lastUsed: slot.lastUsed,
      }))
      .sort((a, b) => b.lastUsed - a.lastUsed)
      .slice(0, limit);
  }

  /** Every session's status (for metrics). */
  statuses(): SlotStatus[] {
    return [...this.slots.values()].flatMap(({ slot }) => slot.status() ?? []);
  }

  /** Process ids (= process-group ids) of running language servers. */
  async pids(): Promise<number[]> {
    return [...this.slots.values()].flatMap(({ slot }) => (slot.current?.pid !== undefined ? [slot.current.pid] : []));
  }

  /** Resident memory of every running server's process group, from /proc. */
  async memory(): Promise<MemoryReport> {
    const running = this.running();
    const bytes = await groupResidentBytes(new Set(running.map((r) => r.pid)));
    const sessions = running.map(({ key, slot, pid }) => ({
      tenant: key.tenant,
      workspace: key.workspace,
      language: slot.languageId,
      pid,
      bytes: bytes.get(pid) ?? 0,
    }));
    return { totalBytes: sessions.reduce((sum, s) => sum + s.bytes, 0), sessions };
  }

  /** Stops idle sessions, then least recently used ones while over the memory budget. */
  sweep(): Promise<void> {
    this.sweeping ??= this.runSweep().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async runSweep(): Promise<void> {
    if (this.closed) return;
    const now = Date.now();
    const { idleTimeoutMs, memoryBudgetBytes, evictionGraceMs } = this.policy;
    if (idleTimeoutMs > 0) {
      for (const { slot } of this.slots.values()) {
        if (slot.current && now - slot.lastUsed >= idleTimeoutMs) slot.stop("idle");
      }
    }
    const tenantMemory = this.policy.tenantLimits.memoryBytes;
    if (memoryBudgetBytes > 0 || tenantMemory > 0) {
      const report = await this.memory();
      const bytesOf = new Map(report.sessions.map((s) => [s.pid, s.bytes]));
      const byTenant = new Map<string, number>();
      for (const s of report.sessions) byTenant.set(s.tenant, (byTenant.get(s.tenant) ?? 0) + s.bytes);
      const evictable = (candidates: ReturnType<SessionManager["running"]>) =>
        candidates.filter(({ slot }) => Date.now() - slot.lastUsed >= evictionGraceMs);
      // A tenant past its own memory share stops its own least recently used servers.
      if (tenantMemory > 0) {
        for (const [tenant, bytes] of byTenant) {
          let used = bytes;
          const own = this.running()
            .filter(({ key }) => key.tenant === tenant)
            .sort((a, b) => a.slot.lastUsed - b.slot.lastUsed);
          own.pop();
          for (const { slot, pid } of evictable(own)) {
            if (used <= tenantMemory) break;
            if (slot.stop("tenant-limit")) used -= bytesOf.get(pid) ?? 0;
          }
          byTenant.set(tenant, used);
        }
      }
      let total = [...byTenant.values()].reduce((sum, bytes) => sum + bytes, 0);
      if (memoryBudgetBytes > 0 && total > memoryBudgetBytes) {
        // The runner is full: the tenant using the most memory gives way first (its least recently
        // used servers), so one tenant opening many workspaces cannot push out another's warm ones.
        // The most recently used server always stays.
        const candidates = this.running().sort(
          (a, b) =>
            (byTenant.get(b.key.tenant) ?? 0) - (byTenant.get(a.key.tenant) ?? 0) || a.slot.lastUsed - b.slot.lastUsed,
        );
        const newest = candidates.reduce<(typeof candidates)[number] | undefined>(
          (best, candidate) => (!best || candidate.slot.lastUsed > best.slot.lastUsed ? candidate : best),
          undefined,
        );
        for (const candidate of evictable(candidates.filter((c) => c !== newest))) {
          if (total <= memoryBudgetBytes) break;
          if (candidate.slot.stop("memory")) total -= bytesOf.get(candidate.pid) ?? 0;
        }
      }
    }
    for (const [id, { slot }] of this.slots) if (slot.isForgettable) this.slots.delete(id);
  }

  /**
   * Stops every session of one workspace for good (`reason`, default "deleted": its workspace was
   * deleted) and resolves once their processes are gone, with the number of servers that ran or
   * were starting. A later request for the workspace gets a new slot (the locator refuses a deleted one).
   */
  async stopWorkspace(tenant: string, workspace: string, reason: StopReason = "deleted"): Promise<number> {
    const stopping: Array<Promise<boolean>> = [];
    for (const [id, { key, slot }] of this.slots) {
      if (key.tenant !== tenant || key.workspace !== workspace) continue;
      this.slots.delete(id);
      stopping.push(slot.close(reason));
    }
    return (await Promise.all(stopping)).filter(Boolean).length;
  }

  /** Stops every session (shutdown ladder, in parallel) and waits for all to be gone. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const slots = [...this.slots.values()];
    this.slots.clear();
    await Promise.allSettled(slots.map(({ slot }) => slot.close()));
    await this.sweeping;
    while (this.closing.size > 0) await Promise.allSettled([...this.closing]);
  }

  private slotFor(key: SessionKey, language: LanguageServerConfig): SessionSlot {
    const id = `${key.tenant}/${key.workspace}/${language.id}`;
    const existing = this.slots.get(id);
    if (existing && existing.key.root === key.root) return existing.slot;
    const names = { tenant: key.tenant, workspace: key.workspace, language: language.id };
    const slot = new SessionSlot({
      key,
      language,
      policy: this.policy,
      maxFileBytes: this.options.maxFileBytes,
      clientCapabilities: this.options.clientCapabilities,
      onLog: this.options.onLog && ((line) => this.options.onLog?.({ ...names, line })),
      onOutgoing: this.options.onOutgoing && ((message) => this.options.onOutgoing?.({ ...names, message })),
      onLifecycleEvent: this.options.onLifecycleEvent,
      onEvent: this.options.onSessionEvent && ((event) => this.options.onSessionEvent?.({ ...key, ...names }, event)),
      track: (closing) => this.track(closing),
    });
    // A workspace whose folder moved gets a fresh slot.
    if (existing) this.track(existing.slot.close());
    this.slots.set(id, { key, slot });
    return slot;
  }

  /**
   * Fair shares: a new server for a tenant at its limit of servers or processes first stops that
   * tenant's own least recently used idle server (never another tenant's); when none is idle the
   * request is refused with RESOURCE_EXHAUSTED naming the limit.
   */
  private async admitTenant(key: SessionKey, language: LanguageServerConfig): Promise<void> {
    const existing = this.slots.get(`${key.tenant}/${key.workspace}/${language.id}`);
    if (existing && existing.key.root === key.root && (existing.slot.current || existing.slot.isStarting)) return;
    const { sessions: maxSessions, processes: maxProcesses } = this.policy.tenantLimits;
    const own = () =>
      [...this.slots.values()].filter(
        ({ key: other, slot }) => other.tenant === key.tenant && (slot.current || slot.isStarting),
      );
    const processes = async () => {
      if (maxProcesses <= 0) return 0;
      const pids = own().flatMap(({ slot }) => (slot.current?.pid !== undefined ? [slot.current.pid] : []));
      return (await processesInGroups(new Set(pids))).length;
    };
    for (;;) {
      const running = own();
      const overSessions = maxSessions > 0 && running.length >= maxSessions;
      const overProcesses = !overSessions && maxProcesses > 0 && (await processes()) >= maxProcesses;
      if (!overSessions && !overProcesses) return;
      const now = Date.now();
      const idle = running
        .filter(({ slot }) => slot.current && now - slot.lastUsed >= this.policy.evictionGraceMs)
        .sort((a, b) => a.slot.lastUsed - b.slot.lastUsed);
      if (!idle.some(({ slot }) => slot.stop("tenant-limit"))) {
        throw new RunnerError(
          "RESOURCE_EXHAUSTED",
          overSessions
            ? `this tenant already runs ${running.length} language servers on this runner, its limit (LSPMESH_TENANT_MAX_SESSIONS=${maxSessions}), and none has been idle for ${this.policy.evictionGraceMs / 1000} s; retry when one is, or work in fewer workspaces at once`
            : `this tenant's language servers already run ${maxProcesses} or more processes on this runner, its limit (LSPMESH_TENANT_MAX_PROCESSES=${maxProcesses}); retry when some are idle`,
        );
      }
    }
  }

  /**
   * A server outside the sandbox can read every folder the runner can: it never runs beside
   * another tenant's sessions, unless the runner's tenants were declared to trust each other.
   * The message names no other tenant.
   */
  private refuseTenantMixing(key: SessionKey, language: LanguageServerConfig): void {
    if (this.policy.tenantsTrustEachOther) return;
    const unsandboxed = (config: LanguageServerConfig) => !this.policy.sandbox || config.sandbox === "none";
    const others = [...this.slots.values()].filter(
      ({ key: other, slot }) => other.tenant !== key.tenant && (slot.current || slot.isStarting),
    );
    const conflict = others.some(({ slot }) => unsandboxed(language) || unsandboxed(slot.language));
    if (conflict)
      throw new RunnerError(
        "UNAVAILABLE",
        "this runner cannot isolate tenants (no sandbox for this language server) and serves another tenant right now; retry shortly, and operators: install bubblewrap on the runners or pin runners to tenants (LSPMESH_TENANTS)",
      );
  }

  private track(closing: Promise<unknown>): void {
    const tracked: Promise<void> = closing
      .then(() => {})
      .catch(() => {})
      .finally(() => this.closing.delete(tracked));
    this.closing.add(tracked);
  }

  private slotsOf(tenant: string, workspace: string): SessionSlot[] {
    return [...this.slots.values()]
      .filter(({ key }) => key.tenant === tenant && key.workspace === workspace)
      .map(({ slot }) => slot);
  }

  private running(): Array<{ key: SessionKey; slot: SessionSlot; pid: number }> {
    return [...this.slots.values()].flatMap(({ key, slot }) => {
      const pid = slot.current?.pid;
      return pid === undefined ? [] : [{ key, slot, pid }];
    });
  }
}
