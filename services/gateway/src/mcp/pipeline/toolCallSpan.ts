// The gateway's OpenTelemetry span for one tool call, the root of what the call costs: its runner
// calls (gRPC client spans) and, through them, the runners' spans are its children. Its parent is
// the caller's W3C trace context: `_meta.traceparent` of the tools/call when given, else the
// `traceparent` header of the HTTP request (made active by MCP serving). Attributes name the tool,
// tenant and workspace, never arguments or file contents. While tracing is off, nothing here runs.
import { tracingEnabled, withTraceParent } from "@lspmesh/service-kit";
import type { CallToolResult, ServerContext } from "@modelcontextprotocol/server";
import { type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { WorkspaceTarget } from "../../workspaces.js";
import { errorCodeOf } from "../toolErrors.js";

/** What the span says of a call (the CallState fields it names). */
export interface TracedCall {
  readonly tool: string;
  readonly requestId: string;
  readonly principal: { readonly tenant: string } | undefined;
}

/** Asked for per span, not kept: a tracer kept from one registered SDK would outlive its close(). */
const tracer = () => trace.getTracer("lspmesh-gateway");

/**
 * Runs the call's pipeline inside its SERVER span, the child of the trace context its request
 * carried (`_meta` first, then the HTTP headers). Callers check tracingEnabled() first.
 */
export function traceToolCall(
  ctx: ServerContext,
  state: TracedCall,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const attributes = {
    "mcp.method.name": "tools/call",
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": state.tool,
    "lspmesh.request_id": state.requestId,
    ...(state.principal ? { "lspmesh.tenant": state.principal.tenant } : {}),
  };
  return withTraceParent(ctx.mcpReq._meta, () =>
    tracer().startActiveSpan(`tools/call ${state.tool}`, { kind: SpanKind.SERVER, attributes }, (span) =>
      endedWith(span, run),
    ),
  );
}

/** Names the workspace a call resolved on its span (the active one inside the call). */
export function noteWorkspace(target: WorkspaceTarget): void {
  if (!tracingEnabled()) return;
  trace.getActiveSpan()?.setAttribute("lspmesh.workspace", target.workspace);
}

async function endedWith(span: Span, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    const result = await run();
    const code = errorCodeOf(result);
    if (code) {
      span.setAttribute("error.type", code);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return result;
  } catch (error) {
    span.setAttribute("error.type", "INTERNAL");
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
