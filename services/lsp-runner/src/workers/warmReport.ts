// A tenant worker's warm sessions, reported to its supervisor every 2 s (`worker/warm`): the
// supervisor's registry entry lists them (`warm`, handoff: docs/architecture.md). The worker is
// confined, not trusted: the supervisor keeps only well-formed sessions of the worker's own tenant.
import { MAX_WARM_SESSIONS, parseSessionId, sessionId } from "@lspmesh/events";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import type { SessionManager } from "../lsp/pool/sessionManager.js";
import { TO_SUPERVISOR } from "./workerProtocol.js";

/** One warm session of a worker: its id (`tenant/workspace/language`) and last use (ms since the epoch). */
export interface WarmSession {
  id: string;
  lastUsed: number;
}

/** How often a worker reports its warm sessions, ms (default 2 000, as its load). */
const WARM_REPORT_MS = 2_000;

/** Sends the warm sessions of `sessions()` every intervalMs (worker side). Idempotent close(). */
export function startWarmReports(
  send: (report: { sessions: WarmSession[] }) => void,
  sessions: () => SessionManager | undefined,
  intervalMs = WARM_REPORT_MS,
): { close(): void } {
  const timer = setInterval(() => {
    const warm = sessions()?.warmSessions(MAX_WARM_SESSIONS) ?? [];
    send({ sessions: warm.map(({ lastUsed, ...session }) => ({ id: sessionId(session), lastUsed })) });
  }, intervalMs);
  timer.unref();
  return { close: () => clearInterval(timer) };
}

/** The worker's reports over its pipe, from now until the pipe closes (none before its core exists). */
export function reportWarmSessions(connection: MessageConnection, sessions: () => SessionManager | undefined): void {
  const reports = startWarmReports((report) => {
    if (sessions()) void connection.sendNotification(TO_SUPERVISOR.warm, report).catch(() => {});
  }, sessions);
  connection.onClose(() => reports.close());
}

/** A worker's report as the supervisor keeps it: valid sessions of `tenant`, at most MAX_WARM_SESSIONS. */
export function parseWarmReport(value: unknown, tenant: string): WarmSession[] {
  const sessions = (value as { sessions?: unknown } | null)?.sessions;
  if (!Array.isArray(sessions)) return [];
  return sessions.slice(0, MAX_WARM_SESSIONS).flatMap((session: Partial<WarmSession> | null) => {
    if (typeof session?.id !== "string" || parseSessionId(session.id)?.tenant !== tenant) return [];
    const lastUsed = typeof session.lastUsed === "number" && Number.isFinite(session.lastUsed) ? session.lastUsed : 0;
    return [{ id: session.id, lastUsed }];
  });
}

/** Several workers' sessions together, most recently used first, at most `limit`. */
export function mergeWarmSessions(lists: Iterable<readonly WarmSession[]>, limit = MAX_WARM_SESSIONS): string[] {
  return [...lists]
    .flat()
    .sort((a, b) => b.lastUsed - a.lastUsed)
    .slice(0, limit)
    .map((session) => session.id);
}
