// Reading a registry value (KV `lspmesh-runners`, docs/events.md) the same way everywhere:
// gateways route by it, runners take sessions over by it (handoff). And the session ids of the
// entry's `warm` list.
import { ID_PATTERN } from "@lspmesh/proto";
import type { RunnerRegistryEntry } from "./payloads.js";

/** Sessions a registry entry lists as warm, at most (most recently used first). */
export const MAX_WARM_SESSIONS = 200;

/** One language-server session: the routing key of its calls. */
export interface SessionRef {
  readonly tenant: string;
  readonly workspace: string;
  readonly language: string;
}

/** Language ids as languages files name them (typescript, typescript-native, cpp). */
const LANGUAGE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** `tenant/workspace/language`: ids never hold a '/'. */
export function sessionId(session: SessionRef): string {
  return `${session.tenant}/${session.workspace}/${session.language}`;
}

/** The session of an id, or undefined when it is not `tenant/workspace/language` of valid ids. */
export function parseSessionId(id: string): SessionRef | undefined {
  const [tenant, workspace, language, ...rest] = id.split("/");
  if (rest.length > 0 || !tenant || !workspace || !language) return undefined;
  if (!ID_PATTERN.test(tenant) || !ID_PATTERN.test(workspace) || !LANGUAGE_PATTERN.test(language)) return undefined;
  return { tenant, workspace, language };
}

/** Parses a registry value; undefined (and the reason) for anything that is not a v1 entry. */
export function registryEntryFrom(key: string, value: unknown): { entry?: RunnerRegistryEntry; problem?: string } {
  const entry = value as Partial<RunnerRegistryEntry> | null;
  if (!entry || typeof entry !== "object") return { problem: "not a JSON object" };
  if (entry.v !== 1) return { problem: `unsupported version ${String(entry.v)}` };
  if (!isHostPort(entry.address)) return { problem: "address is not host:port" };
  if (!Array.isArray(entry.languages) || !entry.languages.every((l) => typeof l === "string"))
    return { problem: "languages is not a list of strings" };
  if (typeof entry.updatedAt !== "number" || typeof entry.heartbeatMs !== "number" || entry.heartbeatMs <= 0)
    return { problem: "updatedAt/heartbeatMs missing" };
  if (
    entry.extensions !== undefined &&
    (typeof entry.extensions !== "object" ||
      entry.extensions === null ||
      !Object.values(entry.extensions).every((list) => Array.isArray(list) && list.every((e) => typeof e === "string")))
  )
    return { problem: "extensions is not a map of language to a list of extensions" };
  if (entry.tenants !== undefined && (!Array.isArray(entry.tenants) || !entry.tenants.every((t) => ID_PATTERN.test(t))))
    return { problem: "tenants is not a list of tenant ids" };
  // The key is what NATS let the writer's identity write (its runner id): an entry naming another
  // runner would borrow that runner's claims.
  if (entry.id !== undefined && entry.id !== "" && entry.id !== key) return { problem: "id is not its key" };
  const { draining, warm, workerAddress, ...rest } = entry as RunnerRegistryEntry;
  // Handoff fields only steer warm-ups, and the worker address only saves a hop: malformed ones
  // are dropped, the entry is still routed.
  return {
    entry: {
      ...rest,
      id: key,
      ...(draining === true ? { draining: true } : {}),
      ...(Array.isArray(warm) ? { warm: warmList(warm) } : {}),
      ...(isHostPort(workerAddress) ? { workerAddress } : {}),
    },
  };
}

function isHostPort(value: unknown): value is string {
  return typeof value === "string" && /^[^\s:]+:\d{1,5}$|^\[[0-9a-f:.]+\]:\d{1,5}$/i.test(value);
}

/** Valid session ids of a `warm` list, the first MAX_WARM_SESSIONS. */
function warmList(warm: readonly unknown[]): string[] {
  return warm
    .slice(0, MAX_WARM_SESSIONS)
    .filter((id): id is string => typeof id === "string" && parseSessionId(id) !== undefined);
}
