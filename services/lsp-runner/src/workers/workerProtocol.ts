// The private pipe between a supervising runner and one tenant's worker process: JSON-RPC
// (vscode-jsonrpc framing) over the worker's stdin/stdout. The supervisor sends Runner calls (the
// protobuf request as base64, answered the same way) and what the event backbone delivers; the
// worker sends what its sessions publish, which the supervisor checks belongs to the worker's
// tenant before it reaches NATS. Nothing here carries a credential. A worker started with an IPC
// channel is also handed connections on it (directCalls.ts).
import type {
  DiagnosticsMessage,
  EpochMessage,
  FileEventsReply,
  StatusMessage,
  SymbolIndexFileEntry,
  SymbolIndexMeta,
} from "@lspmesh/events";
import type { TraceHeaders } from "@lspmesh/service-kit";
import type { TenantLimits } from "../lsp/pool/sessionPolicy.js";
import type { ReleasedWorkspace, ServedLanguage } from "../runnerCore.js";
import type { WarmUpEntry } from "../sessionWarmUp.js";

/** Supervisor → worker. */
export const TO_WORKER = {
  /** WorkerInit → WorkerReady: builds the worker's runner core. */
  init: "worker/init",
  /** CallParams → CallResult: one Runner call. Cancelled with JSON-RPC's $/cancelRequest. */
  call: "worker/call",
  /** { subscription, payload } → FileEventsReply: a file-change announcement to answer. */
  fileEvents: "worker/fileEvents",
  /** { subscription, payload }: a file-change announcement to follow (notification). */
  observedFileEvents: "worker/observedFileEvents",
  /**
   * { workspace } → ReleasedWorkspace: the workspace was deleted; its servers, indexing and
   * watches stop (answered once they did; the supervisor deletes its stored index after).
   */
  releaseWorkspace: "worker/releaseWorkspace",
  /** { workspace, deleted }: a workspace of the tenant deleted, or added again, in the control plane (notification). */
  deletion: "worker/deletion",
  /** The backbone came back after a loss (notification). */
  reconnected: "worker/reconnected",
  /** { graceMs } → {}: stop every language server; the worker exits after answering. */
  shutdown: "worker/shutdown",
} as const;

/** Worker → supervisor. Every payload names a tenant the supervisor checks against the worker's. */
export const TO_SUPERVISOR = {
  publishDiagnostics: "bus/publishDiagnostics",
  clearDiagnostics: "bus/clearDiagnostics",
  publishStatus: "bus/publishStatus",
  /** EpochMessage (notification): sent before the answer of the call that moved the epoch. */
  publishEpoch: "bus/publishEpoch",
  /**
   * {} → {}: answered once every announcement sent before it reached NATS (a call the worker
   * answers itself, on a direct connection, replies after it).
   */
  flushPublished: "bus/flushPublished",
  /** SubscribeParams → {}: deliver a workspace's announcements (answered, or only observed). */
  subscribe: "bus/subscribe",
  /** { subscription } (notification). */
  unsubscribe: "bus/unsubscribe",
  indexRead: "index/read",
  indexPutFile: "index/putFile",
  indexDeleteFile: "index/deleteFile",
  indexPutMeta: "index/putMeta",
  indexOwnedBy: "index/ownedBy",
  /** { entry }: one structured log entry (notification). */
  log: "worker/log",
  /** WorkerLoad (workerLoad.ts): language servers running and answer counts, for the load and metrics (notification). */
  load: "worker/load",
  /** { sessions: WarmSession[] } (warmReport.ts): warm sessions, for the registry's `warm` list (notification). */
  warm: "worker/warm",
  /** { spans: RelayedSpan[] }: spans the worker ended, for the supervisor to export (notification). */
  spans: "worker/spans",
} as const;

/** What a worker is told at start: no secret, nothing of another tenant. */
export interface WorkerInit {
  tenant: string;
  runnerId: string;
  /** The volume root; the worker serves `<root>/<tenant>/<workspace>` only. */
  root: string;
  languagesFile?: string;
  maxFileBytes?: number;
  answerCacheEntries?: number;
  /** Questions per session asked again after documents were opened; 0 = off. */
  answerWarming?: number;
  allowGitWrites?: boolean;
  idleTimeoutMs?: number;
  memoryBudgetBytes?: number;
  tenantLimits?: Partial<TenantLimits>;
  watchWorkspaces?: boolean;
  watchDebounceMs?: number;
  symbolIndex?: { enabled?: boolean; maxFiles?: number; maxSymbolsPerFile?: number; maxFileBytes?: number };
  /** Sessions of this tenant started at once (LSPMESH_WARMUP entries naming it). */
  warmUp?: WarmUpEntry[];
  /** The tenant's workspaces deleted in the control plane now (worker/deletion tells the changes). */
  deleted?: string[];
  /** The supervisor traces: the worker records spans in traced calls and relays them (worker/spans). */
  tracing?: boolean;
}

export interface WorkerReady {
  served: ServedLanguage[];
  pid: number;
}

export interface CallParams {
  /** The Runner method's local name, e.g. "hover". */
  method: string;
  /** The request message, protobuf binary in base64. */
  request: string;
  /** Time left before the caller's deadline, ms (absent: none). */
  deadlineMs?: number;
  /** The caller's request id (for the worker's log lines). */
  requestId?: string;
  /** The supervisor's span for the call, when tracing is on: the worker's spans are its children. */
  trace?: TraceHeaders | undefined;
}

export type CallResult =
  | { answer: string }
  | { status: { code: number; message: string; trailers: Record<string, string> } }
  | { failure: string };

export interface SubscribeParams {
  subscription: number;
  tenant: string;
  workspace: string;
  /** True: the worker answers each announcement (FileEventsReply); false: it only follows them. */
  answer: boolean;
}

export interface DeliveredFileEvents {
  subscription: number;
  /** The announcement's raw bytes, base64. */
  payload: string;
}

export interface StoredIndexWire {
  meta?: SymbolIndexMeta;
  files: SymbolIndexFileEntry[];
}

export type {
  DiagnosticsMessage,
  EpochMessage,
  FileEventsReply,
  ReleasedWorkspace,
  StatusMessage,
  SymbolIndexFileEntry,
  SymbolIndexMeta,
};
