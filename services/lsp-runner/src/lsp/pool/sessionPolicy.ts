// How the runner keeps its language servers healthy and within bounds; every knob with its default.

import { defaultWatchesPerTenant } from "../../workspace/watchBudget.js";
import { DEFAULT_MAX_OPEN_DOCUMENTS } from "../documents/openDocuments.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../process/messageSizeGuard.js";
import type { Sandbox } from "../process/sandbox.js";
import { type ChildLimits, DEFAULT_CHILD_LIMITS } from "../process/serverLaunch.js";
import { DEFAULT_MAX_CONSECUTIVE_TIMEOUTS, DEFAULT_PROBE_TIMEOUT_MS } from "../session/languageSession.js";
import { DEFAULT_RESTART_BUDGET, type RestartBudgetOptions } from "./restartBudget.js";

export interface SessionPolicy {
  /** Liveness probe timeout after a request timed out, ms (default 5 000). */
  probeTimeoutMs: number;
  /** Requests in a row that may time out while the probe still answers, before a restart (default 3). */
  maxConsecutiveTimeouts: number;
  /**
   * A server with a stopped process (SIGSTOP, a debugger) seen in two checks of its process tree
   * (every 2 s) is killed and restarted (default true).
   */
  restartStoppedServers: boolean;
  /**
   * A server that misses the liveness probe while its processes keep a CPU busy is working (a very
   * large file), not hung: it is left to finish for this long before it is restarted, ms, for every
   * language (default unset: each language's own maxBusyMs).
   */
  maxBusyMs?: number;
  /** Backoff, restart budget and cool-down for failed servers (5 restarts in 5 min, then 60 s). */
  restart: RestartBudgetOptions;
  /** A server that failed within this many ms shows `degraded` in workspace status (default 60 000). */
  degradedAfterFailureMs: number;
  /** A session unused this long is stopped, ms; 0 never (default 1 800 000 = 30 min). */
  idleTimeoutMs: number;
  /**
   * Resident memory all language servers together may use, bytes (RSS summed over each server's
   * process group); past it the least recently used idle sessions are stopped. 0: no budget (default).
   */
  memoryBudgetBytes: number;
  /** How often idle sessions and the memory budget are checked, ms (default 10 000). */
  sweepIntervalMs: number;
  /** A session used within this many ms is not stopped to save memory (default 10 000). */
  evictionGraceMs: number;
  /** Documents kept open per session; the least recently used beyond are closed (default 256). */
  maxOpenDocuments: number;
  /** Largest LSP message accepted from a server, bytes; larger stops the server (default 64 MiB). */
  maxMessageBytes: number;
  /** Resource limits of every language-server process. */
  limits: ChildLimits;
  /** Parent-death watchdog in each server's process group (default true). */
  parentWatchdog: boolean;
  /**
   * The sandbox every server runs in (bubblewrap, sandbox.ts), unless its language opts out;
   * undefined: none (default here; the runner turns it on wherever it works).
   */
  sandbox: Sandbox | undefined;
  /**
   * The tenants this runner serves were declared to trust each other (a dedicated pool). When
   * false, a server outside the sandbox never runs beside another tenant's sessions (default false).
   */
  tenantsTrustEachOther: boolean;
  /** Fair shares on this runner: what one tenant may hold at once (0 = no limit). */
  tenantLimits: TenantLimits;
}

export interface TenantLimits {
  /** Language servers (sessions) of one tenant (default 12). */
  sessions: number;
  /** Processes in one tenant's servers' process groups together (default 96). */
  processes: number;
  /** Resident memory of one tenant's servers together, bytes; past it its own idle ones stop (default 0: none). */
  memoryBytes: number;
  /**
   * inotify watches of one tenant's workspaces together (one per folder and watcher; default an
   * eighth of the kernel's fs.inotify.max_user_watches, 1 024–20 000); past it, folders are polled.
   */
  watches: number;
}

export const DEFAULT_SESSION_POLICY: SessionPolicy = {
  probeTimeoutMs: DEFAULT_PROBE_TIMEOUT_MS,
  maxConsecutiveTimeouts: DEFAULT_MAX_CONSECUTIVE_TIMEOUTS,
  restartStoppedServers: true,
  restart: DEFAULT_RESTART_BUDGET,
  degradedAfterFailureMs: 60_000,
  idleTimeoutMs: 30 * 60_000,
  memoryBudgetBytes: 0,
  sweepIntervalMs: 10_000,
  evictionGraceMs: 10_000,
  maxOpenDocuments: DEFAULT_MAX_OPEN_DOCUMENTS,
  maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
  limits: DEFAULT_CHILD_LIMITS,
  parentWatchdog: true,
  sandbox: undefined,
  tenantsTrustEachOther: false,
  tenantLimits: { sessions: 12, processes: 96, memoryBytes: 0, watches: defaultWatchesPerTenant() },
};

/** Overrides as given to the runner: any field, and any field of `restart` and `limits`. */
export type SessionPolicyOverrides = Partial<Omit<SessionPolicy, "restart" | "limits" | "tenantLimits">> & {
  restart?: Partial<RestartBudgetOptions>;
  limits?: ChildLimits;
  tenantLimits?: Partial<TenantLimits>;
};

export function sessionPolicy(overrides: SessionPolicyOverrides = {}): SessionPolicy {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return {
    ...DEFAULT_SESSION_POLICY,
    ...defined,
    restart: { ...DEFAULT_SESSION_POLICY.restart, ...overrides.restart },
    limits: { ...DEFAULT_SESSION_POLICY.limits, ...overrides.limits },
    tenantLimits: {
      ...DEFAULT_SESSION_POLICY.tenantLimits,
      ...Object.fromEntries(Object.entries(overrides.tenantLimits ?? {}).filter(([, value]) => value !== undefined)),
    },
  };
}
