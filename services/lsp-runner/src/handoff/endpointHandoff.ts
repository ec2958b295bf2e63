// The handoff as a runner's endpoint runs it (runnerEndpoint.ts): built from the endpoint's parts,
// it warms what this runner will own before it registers (readiness NOT_SERVING meanwhile, so a
// rollout waits for it), adds `warm` and `draining` to the registry entry, and holds a drain until
// the successors are warm.
import type { ServiceClient } from "@lspmesh/grpc";
import { DEFAULT_CALL_TIMEOUT_MS, type Runner } from "@lspmesh/proto";
import type { RunnerEventBus } from "../events/eventBus.js";
import { Handoff } from "./handoff.js";
import { registryViewKeys } from "./handoffPlan.js";
import { RunnerPeers } from "./runnerPeers.js";

export interface EndpointHandoffOptions {
  id: string;
  pool?: string;
  /** Tenants this runner admits; undefined = any. */
  tenants?: readonly string[];
  /** Language ids served. */
  languages: readonly string[];
  bus: RunnerEventBus;
  /** Warm sessions here, most recently used first; absent = no handoff. */
  warmSessions?: () => string[];
  /** The runner's own service (warm-ups are real calls through it). */
  client: ServiceClient<typeof Runner.method>;
  /** Writes the registry entry now. */
  publish: () => Promise<void>;
  /** Longest wait, ms; 0 or absent = no handoff. */
  budgetMs?: number;
  log: (entry: Record<string, unknown>) => void;
}

/**
 * A query no symbol matches: answering it starts the session and opens one file per project, so
 * the server has loaded every project when the first real call comes (projectAnchors.ts).
 */
const WARM_QUERY = "lspmeshHandoffWarmUp";

/** The handoff, or undefined when it is off (no budget, no NATS, no warm sessions to tell). */
export function endpointHandoff(options: EndpointHandoffOptions): Handoff | undefined {
  const { bus, warmSessions, budgetMs, client } = options;
  if (!budgetMs || !bus.registryView || !warmSessions) return undefined;
  const view = bus.registryView(registryViewKeys(options.id, options.pool, options.tenants));
  return new Handoff({
    self: { id: options.id, languages: options.languages, tenants: options.tenants },
    peers: (onChange) =>
      new RunnerPeers({
        ...view,
        onChange,
        onProblem: (message, key) => options.log({ level: "debug", msg: `handoff: ${message}`, key }),
      }),
    warmSessions,
    warm: async ({ tenant, workspace, language }, signal) => {
      await client.workspaceSymbols(
        { workspace: { tenant, workspace }, query: WARM_QUERY, languages: [language], limit: 1 },
        { signal, timeoutMs: DEFAULT_CALL_TIMEOUT_MS },
      );
    },
    publish: options.publish,
    budgetMs,
    log: options.log,
  });
}

/** The registry entry's handoff fields: its warm sessions, and `draining` once it drains. */
export function handoffFields(handoff: Handoff | undefined): { warm?: string[]; draining?: boolean } {
  if (!handoff) return {};
  return { warm: handoff.warmList(), ...(handoff.isDraining ? { draining: true } : {}) };
}

/** Readiness of the Runner service (the gRPC health service's status for it). */
export interface Readiness {
  setStatus(service: string, status: "SERVING" | "NOT_SERVING"): void;
}

/**
 * Before registering: not ready (kubelet's readiness probe asks `lspmesh.v1.Runner`) while this
 * runner warms the sessions it will own; returns the handoff, or undefined when the registry cannot
 * be read (then it drains as before).
 */
export async function reclaimBeforeRegistering(
  handoff: Handoff | undefined,
  health: Readiness,
  log: (entry: Record<string, unknown>) => void,
): Promise<Handoff | undefined> {
  if (!handoff) return undefined;
  health.setStatus("lspmesh.v1.Runner", "NOT_SERVING");
  try {
    if (!(await handoff.start())) return undefined;
    const report = await handoff.reclaim();
    if (report.sessions > 0) log({ level: "info", msg: "handoff: warmed before registering", ...report });
    return handoff;
  } finally {
    health.setStatus("lspmesh.v1.Runner", "SERVING");
  }
}

/** The drain's handoff: entry marked draining, successors warm (or the budget, at most graceMs, spent); ms taken. */
export async function handOver(
  handoff: Handoff | undefined,
  graceMs: number,
  log: (entry: Record<string, unknown>) => void,
): Promise<number> {
  if (!handoff) return 0;
  const report = await handoff.drain(graceMs);
  handoff.close();
  log({ level: "info", msg: "handoff: sessions handed over", ...report });
  return report.ms;
}
