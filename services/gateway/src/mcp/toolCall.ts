// What every tool call shares: a request id, the caller's workspace and runner, gRPC call options
// (deadline, x-request-id, cancellation), one log line, and errors turned into tool errors.
import { randomUUID } from "node:crypto";
import { type CallOptions, Metadata } from "@lspmesh/proto";
import type { CallToolResult, ServerContext } from "@modelcontextprotocol/server";
import { GatewayError } from "../errors.js";
import { isServiceError, toolErrorFromGrpc } from "../grpcErrors.js";
import type { Logger } from "../logger.js";
import type { RunnerClient, RunnerRouter } from "../runnerRouting.js";
import type { WorkspaceResolver, WorkspaceTarget } from "../workspaces.js";

/** gRPC metadata key carrying the per-call request id to the runner (and its logs). */
export const REQUEST_ID_METADATA = "x-request-id";

/** `_meta` key of a tool error result: `{ code, message, requestId }` for programs to read. */
export const ERROR_META_KEY = "lspmesh/error";

export interface ToolDeps {
  readonly router: RunnerRouter;
  readonly workspaces: WorkspaceResolver;
  readonly logger: Logger;
  /** Deadline of one runner call in ms (gateway default 30 000). */
  readonly callTimeoutMs: number;
}

/** The per-call services a tool body uses. */
export interface ToolCall {
  readonly requestId: string;
  /** Resolves the `workspace` argument for this caller and picks the runner that serves it. */
  target(workspace: string | undefined): Promise<{ workspace: WorkspaceTarget; runner: RunnerClient }>;
  /** Options for one runner call: deadline (callTimeoutMs + extraMs), request id, cancellation. */
  runnerOptions(extraMs?: number): CallOptions;
  /** Progress hook for long calls. A no-op until a tool reports progress (notifications/progress). */
  progress(message: string): void;
}

export async function runTool(
  deps: ToolDeps,
  ctx: ServerContext,
  tool: string,
  body: (call: ToolCall) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const requestId = randomUUID();
  const started = performance.now();
  // Aborted when the MCP client cancels or disconnects; cancels the runner call with it.
  const signal = ctx.mcpReq.signal;
  const call: ToolCall = {
    requestId,
    async target(requested) {
      const workspace = await deps.workspaces.resolve(requested, { authInfo: ctx.http?.authInfo });
      return { workspace, runner: deps.router.clientFor(workspace.tenant, workspace.workspace) };
    },
    runnerOptions(extraMs = 0) {
      if (signal.aborted) throw new GatewayError("UNAVAILABLE", "the request was cancelled; send it again");
      const metadata = new Metadata();
      metadata.set(REQUEST_ID_METADATA, requestId);
      return { timeoutMs: deps.callTimeoutMs + extraMs, metadata, signal };
    },
    progress() {},
  };
  const durationMs = () => Math.round(performance.now() - started);
  try {
    const result = await body(call);
    deps.logger.info("tool call", { requestId, tool, durationMs: durationMs(), outcome: "ok" });
    return result;
  } catch (error) {
    const toolError = toGatewayError(error);
    if (toolError) {
      deps.logger.info("tool call", {
        requestId,
        tool,
        durationMs: durationMs(),
        outcome: "error",
        code: toolError.code,
      });
      return toolErrorResult(toolError, requestId);
    }
    deps.logger.error("tool call failed unexpectedly", {
      requestId,
      tool,
      durationMs: durationMs(),
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return toolErrorResult(
      new GatewayError("UNAVAILABLE", `internal error in the gateway; try again, and report request id ${requestId}`),
      requestId,
    );
  }
}

function toGatewayError(error: unknown): GatewayError | undefined {
  if (error instanceof GatewayError) return error;
  if (isServiceError(error)) return toolErrorFromGrpc(error);
  return undefined;
}

/**
 * An `isError` tool result. No structuredContent: 1.x SDK clients validate it against the
 * tool's outputSchema even on errors, so the code rides in the text and in `_meta`.
 */
export function toolErrorResult(error: GatewayError, requestId?: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${error.code}: ${error.message}` }],
    _meta: { [ERROR_META_KEY]: { code: error.code, message: error.message, ...(requestId ? { requestId } : {}) } },
  };
}
