// The constants gateway, runner and CLI share: the one place each is written. Pure data, no
// imports: every layer may use it. Users rely on these names (docs/tools.md, docs/events.md).

// ---------------------------------------------------------------------------------------------
// Errors

/** Stable error codes of the MCP tools (docs/tools.md); the runner sends them in ERROR_CODE_TRAILER. */
export const ERROR_CODES = [
  "INVALID_ARGUMENT",
  "OUTSIDE_WORKSPACE",
  "NOT_FOUND",
  "NO_LANGUAGE_SERVER",
  "SYMBOL_NOT_FOUND",
  "SERVER_STARTING",
  "SERVER_FAILED",
  "TIMEOUT",
  "FORBIDDEN",
  "RATE_LIMITED",
  "UNAVAILABLE",
  "UNSUPPORTED",
  /** An edit computed against content that changed since. */
  "STALE_EDIT",
  /** The tenant is at one of its limits on this runner (language servers, processes, memory). */
  "RESOURCE_EXHAUSTED",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

/**
 * Codes the runner may send that are not tool codes, and the tool code each becomes (the
 * runner's message stays). FILE_TOO_LARGE is a property of the argument, not of the load.
 */
export const RUNNER_ONLY_ERROR_CODES = { FILE_TOO_LARGE: "INVALID_ARGUMENT" } as const satisfies Record<
  string,
  ErrorCode
>;

export type RunnerErrorCode = Exclude<ErrorCode, "FORBIDDEN" | "RATE_LIMITED"> | keyof typeof RUNNER_ONLY_ERROR_CODES;

/** gRPC status codes (the standard numbering, grpc/doc/statuscodes.md) used below. */
export const GRPC_STATUS = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

/**
 * The gRPC status a runner answers with for each of its codes. The gateway reads the code from
 * the trailer; the status is what plain gRPC clients (and health checks) see.
 */
export const GRPC_STATUS_OF_ERROR: Record<RunnerErrorCode, number> = {
  INVALID_ARGUMENT: GRPC_STATUS.INVALID_ARGUMENT,
  OUTSIDE_WORKSPACE: GRPC_STATUS.INVALID_ARGUMENT,
  NOT_FOUND: GRPC_STATUS.NOT_FOUND,
  NO_LANGUAGE_SERVER: GRPC_STATUS.FAILED_PRECONDITION,
  SYMBOL_NOT_FOUND: GRPC_STATUS.NOT_FOUND,
  SERVER_STARTING: GRPC_STATUS.UNAVAILABLE,
  SERVER_FAILED: GRPC_STATUS.INTERNAL,
  TIMEOUT: GRPC_STATUS.DEADLINE_EXCEEDED,
  UNSUPPORTED: GRPC_STATUS.UNIMPLEMENTED,
  FILE_TOO_LARGE: GRPC_STATUS.RESOURCE_EXHAUSTED,
  STALE_EDIT: GRPC_STATUS.ABORTED,
  UNAVAILABLE: GRPC_STATUS.UNAVAILABLE,
  RESOURCE_EXHAUSTED: GRPC_STATUS.RESOURCE_EXHAUSTED,
};

/** `_meta` key of an MCP tool error result: `{ code, message, requestId, retryAfterMs? }` for programs. */
export const ERROR_META_KEY = "lspmesh/error";

// ---------------------------------------------------------------------------------------------
// gRPC metadata between gateway and runner

/** Trailer in which the runner sends the stable error code of a failed call. */
export const ERROR_CODE_TRAILER = "lspmesh-error-code";
/** Request metadata carrying the gateway's per-call request id (logged by both sides). */
export const REQUEST_ID_METADATA = "x-request-id";

// ---------------------------------------------------------------------------------------------
// Identities

/** Tenant and workspace ids: 1–63 of a-z, 0-9, '_', '-'; safe as a path segment and a NATS token. */
export const ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * Direct worker connections: the host an HTTP CONNECT to a runner's worker port names for a
 * tenant's worker is `<tenant>` + this (any port).
 */
export const WORKER_TARGET_SUFFIX = ".tenants.lspmesh";

export function isId(value: string): boolean {
  return ID_PATTERN.test(value);
}

/** What to say when an id does not match ID_PATTERN. */
export const ID_RULE = "use 1–63 characters of a-z, 0-9, '_' or '-', starting with a letter or digit";

/** Tenant of single-machine mode (`lspmesh serve`, `mcp`, `check`). */
export const LOCAL_TENANT = "local";
/** Workspace served in single-machine mode unless `--workspace` names another. */
export const DEFAULT_WORKSPACE = "default";

// ---------------------------------------------------------------------------------------------
// Language-server states

/** Server states every answer carries (docs/tools.md). */
export const SERVER_STATES = ["starting", "indexing", "ready", "degraded", "failed"] as const;
export type ServerStateName = (typeof SERVER_STATES)[number];

// ---------------------------------------------------------------------------------------------
// Defaults the services share

/** Deadline of one gateway → runner call, in ms; diagnostics add their wait_ms. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** Port of `lspmesh serve` and of the gateway. */
export const DEFAULT_GATEWAY_PORT = 7420;
/** gRPC port of a runner. */
export const DEFAULT_RUNNER_PORT = 7421;
