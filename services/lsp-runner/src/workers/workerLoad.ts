// What a tenant worker reports to its supervisor every 2 s: its running language servers (the
// registry's load, and the language-server metrics of a supervising runner) and its answer-cache
// counts. The worker is confined, not trusted: the supervisor keeps only well-formed values, and
// checks the language ids against its own configuration where they become metric labels.
import { SERVER_STATES } from "@lspmesh/proto";
import type { AnswerCacheCounts } from "../engine/answerCache.js";
import type { SlotStatus } from "../lsp/pool/sessionSlot.js";
import type { RunnerCore } from "../runnerCore.js";

/** One language server, as the runner's metrics count it. */
export type ServerCounts = Pick<SlotStatus, "language" | "state" | "restarts">;

export interface WorkerLoad {
  /** Language servers running (the registry's load). */
  sessions: number;
  servers: ServerCounts[];
  /** How the worker's read-only requests were answered since it started. */
  answers: AnswerCacheCounts;
}

export const NO_LOAD: WorkerLoad = Object.freeze({ sessions: 0, servers: [], answers: { hit: 0, shared: 0, miss: 0 } });

/** Most servers one report may list: a worker runs a handful (one per workspace and language). */
const MAX_SERVERS = 1_000;

/** The report of a worker's core (worker side). */
export function workerLoadOf(core: RunnerCore | undefined): WorkerLoad {
  if (!core) return NO_LOAD;
  return {
    sessions: core.events.sessionCount,
    servers: core.sessions.statuses().map(({ language, state, restarts }) => ({ language, state, restarts })),
    answers: { ...core.engine.answers.counts },
  };
}

/** A worker's report as the supervisor keeps it: anything malformed counts as nothing. */
export function parseWorkerLoad(value: unknown): WorkerLoad {
  const report = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const servers = Array.isArray(report.servers) ? report.servers.slice(0, MAX_SERVERS) : [];
  const answers = (typeof report.answers === "object" && report.answers !== null ? report.answers : {}) as Record<
    string,
    unknown
  >;
  return {
    sessions: count(report.sessions),
    servers: servers.flatMap((server: Partial<Record<keyof ServerCounts, unknown>> | null) =>
      server && typeof server.language === "string" && (SERVER_STATES as readonly unknown[]).includes(server.state)
        ? [
            {
              language: server.language,
              state: server.state as ServerCounts["state"],
              restarts: count(server.restarts),
            },
          ]
        : [],
    ),
    answers: { hit: count(answers.hit), shared: count(answers.shared), miss: count(answers.miss) },
  };
}

/** A non-negative whole number, or 0. */
function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}
