// The one translation at the MCP boundary: whatever a call threw (a GatewayError, or a gRPC status
// from a runner) becomes an `isError` tool result with a stable code.
import { GrpcStatus } from "@lspmesh/grpc";
import { ERROR_CODE_TRAILER, ERROR_META_KEY } from "@lspmesh/proto";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { GatewayError } from "../errors.js";
import { isServiceError, toolErrorFromGrpc } from "../grpcErrors.js";

/** `_meta[ERROR_META_KEY]` of a tool error result (`@lspmesh/proto`): `{ code, message, requestId, retryAfterMs? }` for programs to read. */
export { ERROR_META_KEY };

/** A transport failure (runner down or unreachable), not an answer the runner wrote. */
export function isUnreachable(error: unknown): boolean {
  return (
    isServiceError(error) &&
    error.code === GrpcStatus.UNAVAILABLE &&
    error.metadata.get(ERROR_CODE_TRAILER).length === 0
  );
}

/** The coded error a thrown value stands for; undefined for a bug (anything else). */
export function toGatewayError(error: unknown): GatewayError | undefined {
  if (error instanceof GatewayError) return error;
  if (isServiceError(error)) return toolErrorFromGrpc(error);
  return undefined;
}

/** What a caller sees for a bug in the gateway: nothing internal, a request id to report. */
export function internalError(requestId: string): GatewayError {
  return new GatewayError(
    "UNAVAILABLE",
    `internal error in the gateway; try again, and report request id ${requestId}`,
  );
}

/**
 * An `isError` tool result. No structuredContent: 1.x SDK clients validate it against the
 * tool's outputSchema even on errors, so the code rides in the text and in `_meta`.
 */
export function toolErrorResult(
  error: GatewayError,
  requestId?: string,
  extra: Record<string, unknown> = {},
): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${error.code}: ${error.message}` }],
    _meta: {
      [ERROR_META_KEY]: { code: error.code, message: error.message, ...(requestId ? { requestId } : {}), ...extra },
    },
  };
}

/** The code of an error result built by toolErrorResult; undefined for a success. */
export function errorCodeOf(result: CallToolResult): string | undefined {
  if (!result.isError) return undefined;
  const meta = result._meta?.[ERROR_META_KEY] as { code?: unknown } | undefined;
  return typeof meta?.code === "string" ? meta.code : "UNAVAILABLE";
}
