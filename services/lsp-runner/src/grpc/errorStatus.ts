// The runner's one boundary translation: RunnerError → gRPC status (the contract's
// GRPC_STATUS_OF_ERROR), with the stable lspmesh code in the ERROR_CODE_TRAILER so the gateway can
// show it unchanged.
import { GrpcStatusError } from "@lspmesh/grpc";
import { ERROR_CODE_TRAILER, GRPC_STATUS_OF_ERROR } from "@lspmesh/proto";
import { RunnerError } from "../errors.js";

/** Runner errors become their status; anything else is rethrown for the adapter's INTERNAL answer. */
export function grpcErrorFromRunner(error: unknown): never {
  if (error instanceof RunnerError) {
    throw new GrpcStatusError(GRPC_STATUS_OF_ERROR[error.code], error.message, { [ERROR_CODE_TRAILER]: error.code });
  }
  throw error;
}
