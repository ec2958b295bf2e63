// Owns every language-server session of this runner, one per (tenant, workspace, language), and
// guarantees that closing the manager leaves no language-server process behind.
import type { LanguageServerConfig } from "./languageRegistry.js";
import { LanguageSession } from "./languageSession.js";
import type { SessionEvent } from "./sessionEvents.js";

export interface SessionKey {
  tenant: string;
  workspace: string;
  /** Real path of the workspace root. */
  root: string;
}

export interface SessionManagerOptions {
  maxFileBytes?: number;
  /** Open documents per session, at most (least recently used are closed past it; default 500). */
  maxOpenDocuments?: number;
  onLog?: (entry: { tenant: string; workspace: string; language: string; line: string }) => void;
  /** Every session's events (state changes, diagnostics, close), with the session's key. */
  onSessionEvent?: (key: SessionKey & { language: string }, event: SessionEvent) => void;
}

export class SessionManager {
  private readonly sessions = new Map<string, Promise<LanguageSession>>();
  private closed = false;

  constructor(private readonly options: SessionManagerOptions = {}) {}

  /** The live session for the key and language, starting (or restarting) one when needed. */
  async get(key: SessionKey, language: LanguageServerConfig): Promise<LanguageSession> {
    if (this.closed) throw new Error("session manager is closed");
    const id = `${key.tenant}/${key.workspace}/${language.id}`;
    const existing = this.sessions.get(id);
    if (existing) {
      const session = await existing.catch(() => undefined);
      if (session?.isAlive) return session;
      if (this.sessions.get(id) === existing) this.sessions.delete(id);
      await session?.close();
    }
    // Concurrent callers share one start.
    const current = this.sessions.get(id);
    if (current) return current;
    const starting = LanguageSession.start({
      language,
      root: key.root,
      maxFileBytes: this.options.maxFileBytes,
      maxOpenDocuments: this.options.maxOpenDocuments,
      onLog: (line) =>
        this.options.onLog?.({ tenant: key.tenant, workspace: key.workspace, language: language.id, line }),
      onEvent: (event) => this.options.onSessionEvent?.({ ...key, language: language.id }, event),
    });
    this.sessions.set(id, starting);
    starting.catch(() => {
      if (this.sessions.get(id) === starting) this.sessions.delete(id);
    });
    return starting;
  }

  /** Sessions currently running for one workspace. */
  async sessionsOf(tenant: string, workspace: string): Promise<LanguageSession[]> {
    const prefix = `${tenant}/${workspace}/`;
    const matching = [...this.sessions.entries()].filter(([id]) => id.startsWith(prefix)).map(([, s]) => s);
    const settled = await Promise.allSettled(matching);
    return settled.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  }

  /** Process ids of running language servers (for tests and status). */
  async pids(): Promise<number[]> {
    const settled = await Promise.allSettled(this.sessions.values());
    return settled.flatMap((r) => (r.status === "fulfilled" && r.value.pid !== undefined ? [r.value.pid] : []));
  }

  /** Stops every session (shutdown ladder, in parallel). Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map(async (starting) => (await starting.catch(() => undefined))?.close()));
  }
}
