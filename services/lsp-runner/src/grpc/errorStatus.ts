// The runner's one boundary translation: RunnerError → gRPC status, with the stable lspmesh code
// in the trailer "lspmesh-error-code" so the gateway can show it unchanged.
import { GrpcStatus, GrpcStatusError } from "@lspmesh/proto";
import { RunnerError, type RunnerErrorCode } from "../errors.js";

export const ERROR_CODE_TRAILER = "lspmesh-error-code";

const STATUS_BY_CODE: Record<RunnerErrorCode, GrpcStatus> = {
  INVALID_ARGUMENT: GrpcStatus.INVALID_ARGUMENT,
  OUTSIDE_WORKSPACE: GrpcStatus.INVALID_ARGUMENT,
  NOT_FOUND: GrpcStatus.NOT_FOUND,
  NO_LANGUAGE_SERVER: GrpcStatus.FAILED_PRECONDITION,
  SYMBOL_NOT_FOUND: GrpcStatus.NOT_FOUND,
  SERVER_STARTING: GrpcStatus.UNAVAILABLE,
  SERVER_FAILED: GrpcStatus.INTERNAL,
  TIMEOUT: GrpcStatus.DEADLINE_EXCEEDED,
  UNSUPPORTED: GrpcStatus.UNIMPLEMENTED,
  FILE_TOO_LARGE: GrpcStatus.RESOURCE_EXHAUSTED,
  STALE_EDIT: GrpcStatus.ABORTED,
  UNAVAILABLE: GrpcStatus.UNAVAILABLE,
};

/** Runner errors become their status; anything else is rethrown for the adapter's INTERNAL answer. */
export function grpcErrorFromRunner(error: unknown): never {
  if (error instanceof RunnerError) {
    throw new GrpcStatusError(STATUS_BY_CODE[error.code], error.message, { [ERROR_CODE_TRAILER]: error.code });
  }
  throw error;
}
