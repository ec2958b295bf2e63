// Message payloads on the subjects of subjects.ts. JSON, versioned by the "v" field.
import type { ServerStateName } from "@lspmesh/proto";

/** One file's diagnostics as published on `lspmesh.diag.…` (docs/events.md). */
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
  /**
   * Workspace epoch the diagnostics were computed in: ms since the Unix epoch, strictly increasing
   * per (workspace, language) session, advanced when its language server (re)starts and whenever
   * the runner tells it that a file of the workspace changed. Of two messages for one file, the
   * one with the higher (epoch, version) is newer.
   */
  epoch: number;
  /** ms since the Unix epoch. */
  publishedAt: number;
  diagnostics: Array<{
    /** 1-based line and code-point column, end exclusive (docs/tools.md, positions). */
    range: { start: { line: number; column: number }; end: { line: number; column: number } };
    /** 1 error, 2 warning, 3 information, 4 hint. */
    severity: number;
    code: string;
    source: string;
    message: string;
  }>;
  /** Diagnostics left out because the message would be too large (at most 1000 are sent). */
  omitted?: number;
  /**
   * The file is gone (deleted, or no longer one the runner can serve): its diagnostics are cleared.
   * `diagnostics` is empty, `language` and `contentSha256` are "", `version` is 0.
   */
  deleted?: true;
}

/**
 * The message that clears a deleted file's diagnostics: it replaces the file's last message (the
 * stream keeps one per subject), which a runner could otherwise remove only with a purge right
 * over every tenant's subjects.
 */
export function deletedFileMessage(
  tenant: string,
  workspace: string,
  file: string,
  now = Date.now(),
): DiagnosticsMessage {
  return {
    v: 1,
    tenant,
    workspace,
    file,
    language: "",
    version: 0,
    contentSha256: "",
    epoch: now,
    publishedAt: now,
    diagnostics: [],
    deleted: true,
  };
}

/**
 * A writer's announcement that files changed (`lspmesh.fs.…`). `file` is workspace-relative POSIX
 * (a directory may be named too: everything under it is rescanned for open documents).
 */
export interface FileEventsMessage {
  v: 1;
  changes: Array<{ file: string; kind: FileChangeKind }>;
}

export type FileChangeKind = "created" | "changed" | "deleted";

/**
 * What a runner answers when a file-change event was sent as a request (with a reply subject):
 * the changes were applied to its language servers before this reply was sent.
 */
export interface FileEventsReply {
  v: 1;
  runner: string;
  /** Changes sent on to language servers (inside the workspace, after validation). */
  applied: number;
  /** Changes refused (outside the workspace, malformed), with the reason. */
  refused: Array<{ file: string; reason: string }>;
}

/** A session state change (`lspmesh.status.…`). */
export interface StatusMessage {
  v: 1;
  tenant: string;
  workspace: string;
  language: string;
  runner: string;
  /** A server state (docs/tools.md), or "stopped" when the session ended (idle, evicted, shutdown). */
  state: ServerStateName | "stopped";
  progress?: string;
  lastError?: string;
  at: number;
}

/**
 * What a workspace's language servers know moved on (`lspmesh.epoch.…`): a document was opened,
 * changed or closed, a file event or an edit reached a server, or a server (re)started. Answers
 * given before it may differ from answers given after it. Runners publish one before they reply
 * to an edit or to a file-change request, so a gateway that flushes its connection before serving
 * a remembered answer has seen every change completed before the call came in.
 */
export interface EpochMessage {
  v: 1;
  tenant: string;
  workspace: string;
  /** The language whose server's knowledge moved ("" when not one language's: a file change seen on disk). */
  language: string;
  /** The runner whose servers moved on. */
  runner: string;
  /** ms since the Unix epoch. */
  at: number;
}

/** The value of a runner's key in the KV bucket `lspmesh-runners` (docs/events.md). */
export interface RunnerRegistryEntry {
  v: 1;
  id: string;
  /** host:port of the runner's gRPC server, reachable from gateways. */
  address: string;
  /**
   * host:port taking direct worker connections (HTTP CONNECT to `<tenant>.tenants.lspmesh`, then
   * gRPC straight to that tenant's worker); absent when the runner relays every call.
   */
  workerAddress?: string;
  /** Ids of the languages served (enabled and installed), or ["*"] for any. */
  languages: string[];
  /**
   * File extensions (with the dot, lower case) of each served language, as loaded from the
   * runner's languages file: gateways route files by them. Absent in entries of older runners.
   */
  extensions?: Record<string, string[]>;
  pool: string;
  /** Tenants this runner admits; absent = any tenant (shared pool). */
  tenants?: string[];
  /** Running language-server sessions. */
  load: number;
  /** ms since the Unix epoch of the last heartbeat; stale after 3 heartbeats. */
  updatedAt: number;
  /** Heartbeat period in ms. */
  heartbeatMs: number;
  /**
   * True from SIGTERM until the entry is removed: the runner still answers (gateways keep routing
   * to it) while its warm sessions are taken over by their next owners (handoff). Absent = false.
   */
  draining?: boolean;
  /**
   * Its warm sessions, `tenant/workspace/language`, most recently used first, at most 200
   * (MAX_WARM_SESSIONS). Absent in entries of older runners and with LSPMESH_HANDOFF=0.
   */
  warm?: string[];
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
