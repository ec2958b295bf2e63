// Message payloads on the subjects of subjects.ts. JSON, versioned by the "v" field.

/** One file's diagnostics as published on `lspmesh.diag.…` (DESIGN.md 3.4). */
export interface DiagnosticsMessage {
  v: 1;
  tenant: string;
  workspace: string;
  /** Workspace-relative POSIX path. */
  file: string;
  language: string;
  /** Document version the diagnostics belong to. */
  version: number;
  /** SHA-256 (hex) of the content they were computed for. */
  contentSha256: string;
  /** Session epoch: restarts of the language server start a new epoch. */
  epoch: number;
  /** ms since the Unix epoch. */
  publishedAt: number;
  diagnostics: Array<{
    /** 1-based line and code-point column, end exclusive (DESIGN.md 3.2). */
    range: { start: { line: number; column: number }; end: { line: number; column: number } };
    /** 1 error, 2 warning, 3 information, 4 hint. */
    severity: number;
    code: string;
    source: string;
    message: string;
  }>;
}

/** A writer's announcement that files changed (`lspmesh.fs.…`). */
export interface FileEventsMessage {
  v: 1;
  changes: Array<{ file: string; kind: "created" | "changed" | "deleted" }>;
}

/** A session state change (`lspmesh.status.…`). */
export interface StatusMessage {
  v: 1;
  tenant: string;
  workspace: string;
  language: string;
  runner: string;
  state: "starting" | "indexing" | "ready" | "degraded" | "failed";
  progress?: string;
  lastError?: string;
  at: number;
}

/** The value of a runner's key in the KV bucket `lspmesh-runners` (DESIGN.md 2). */
export interface RunnerRegistryEntry {
  v: 1;
  id: string;
  /** host:port of the runner's gRPC server, reachable from gateways. */
  address: string;
  languages: string[];
  pool: string;
  /** Tenants this runner admits; absent = any tenant (shared pool). */
  tenants?: string[];
  /** Running language-server sessions. */
  load: number;
  /** ms since the Unix epoch of the last heartbeat; stale after 3 heartbeats. */
  updatedAt: number;
  /** Heartbeat period in ms. */
  heartbeatMs: number;
}

export function encodeJson(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

export function decodeJson<T>(bytes: Uint8Array): T {
  return JSON.parse(new TextDecoder().decode(bytes)) as T;
}

/** An entry is live while its last heartbeat is younger than 3 heartbeat periods. */
export function isLive(entry: RunnerRegistryEntry, now = Date.now()): boolean {
  return now - entry.updatedAt < 3 * entry.heartbeatMs;
}
