// Translates a failed runner call (a grpc-js ServiceError) into the gateway's error family.
import { GrpcStatus, Metadata, type ServiceError } from "@lspmesh/grpc";
import { ERROR_CODE_TRAILER, type ErrorCode, isErrorCode, RUNNER_ONLY_ERROR_CODES } from "@lspmesh/proto";
import { GatewayError } from "./errors.js";

/** Longest runner message passed on to the caller, in characters. */
const MAX_MESSAGE_LENGTH = 1000;

/** Codes whose status message was written by the runner for the end user, not by grpc-js. */
const RUNNER_AUTHORED = new Map<GrpcStatus, ErrorCode>([
  [GrpcStatus.INVALID_ARGUMENT, "INVALID_ARGUMENT"],
  [GrpcStatus.NOT_FOUND, "NOT_FOUND"],
  [GrpcStatus.PERMISSION_DENIED, "FORBIDDEN"],
  [GrpcStatus.RESOURCE_EXHAUSTED, "RATE_LIMITED"],
  [GrpcStatus.UNIMPLEMENTED, "UNSUPPORTED"],
  [GrpcStatus.FAILED_PRECONDITION, "NO_LANGUAGE_SERVER"],
  [GrpcStatus.ABORTED, "STALE_EDIT"],
]);

/** The gateway's own wording, for statuses grpc-js produces itself and for empty runner messages. */
const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  INVALID_ARGUMENT: "the runner refused the arguments; check the file path and position and try again",
  OUTSIDE_WORKSPACE: "the path resolves outside the workspace; give a workspace-relative path such as src/a.ts",
  NOT_FOUND: "not found; check the workspace and the workspace-relative file path",
  NO_LANGUAGE_SERVER: "no language server is configured for this file's language",
  SYMBOL_NOT_FOUND: "the symbol was not found near the given line; check its spelling or give line and column",
  SERVER_STARTING: "the language server is still starting; try again in a few seconds",
  SERVER_FAILED: "the language server failed; try again later, and check the runner's logs if it persists",
  TIMEOUT: "the runner did not answer in time; the language server may still be indexing, so try again shortly",
  FORBIDDEN: "this caller may not use that workspace",
  RATE_LIMITED: "too many requests; wait a moment and try again",
  UNAVAILABLE: "the runner is unavailable; try again shortly, and check that the lsp-runner is running if it persists",
  UNSUPPORTED: "the language server does not support this request",
  STALE_EDIT: "a file changed after the edit was computed; compute the edit again (preview) and apply that",
  RESOURCE_EXHAUSTED:
    "this tenant is at its limit of language servers on the runner; wait until some are idle, or ask the operator to raise the limit",
};

export function isServiceError(error: unknown): error is ServiceError {
  return (
    error instanceof Error &&
    typeof (error as Partial<ServiceError>).code === "number" &&
    (error as Partial<ServiceError>).metadata instanceof Metadata
  );
}

/**
 * The one translation from a runner failure to a tool error. The runner's trailer code wins;
 * otherwise the gRPC status picks the code. Runner-written messages pass through (trimmed, first
 * paragraph only, so a stray stack trace cannot leak); transport failures get the gateway's wording.
 */
export function toolErrorFromGrpc(error: ServiceError): GatewayError {
  const raw = error.metadata?.get(ERROR_CODE_TRAILER)[0];
  const trailer =
    typeof raw === "string" ? (RUNNER_ONLY_ERROR_CODES[raw as keyof typeof RUNNER_ONLY_ERROR_CODES] ?? raw) : raw;
  if (isErrorCode(trailer)) return new GatewayError(trailer, runnerMessage(error.details) ?? DEFAULT_MESSAGES[trailer]);

  const code = RUNNER_AUTHORED.get(error.code);
  if (code) return new GatewayError(code, runnerMessage(error.details) ?? DEFAULT_MESSAGES[code]);

  switch (error.code) {
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new GatewayError("TIMEOUT", DEFAULT_MESSAGES.TIMEOUT);
    case GrpcStatus.UNAUTHENTICATED:
      return new GatewayError(
        "UNAVAILABLE",
        "the runner refused this gateway's credentials; the operator must give gateways and runners the same LSPMESH_GRPC_SECRET_FILE or mTLS files",
      );
    case GrpcStatus.CANCELLED:
      return new GatewayError("UNAVAILABLE", "the request was cancelled before the runner answered; send it again");
    default:
      return new GatewayError("UNAVAILABLE", DEFAULT_MESSAGES.UNAVAILABLE);
  }
}

function runnerMessage(details: string | undefined): string | undefined {
  const firstParagraph = (details ?? "").split(/\n\s*(?:\n|at\s)/)[0]?.trim() ?? "";
  if (firstParagraph === "") return undefined;
  return firstParagraph.length > MAX_MESSAGE_LENGTH
    ? `${firstParagraph.slice(0, MAX_MESSAGE_LENGTH)}…`
    : firstParagraph;
}
