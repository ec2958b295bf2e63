// Runs one tool call: builds its state and call object, then passes it through the steps.
import { randomUUID } from "node:crypto";
import { type LogFields, tracingEnabled } from "@lspmesh/service-kit";
import type { CallToolResult, ServerContext } from "@modelcontextprotocol/server";
import { principalFrom } from "../../auth/principal.js";
import { createToolCall, type ToolCall, type ToolDeps } from "../toolCall.js";
import { type CallState, composeSteps } from "./callState.js";
import { TOOL_CALL_STEPS } from "./steps.js";
import { traceToolCall } from "./toolCallSpan.js";

export interface ToolRunOptions {
  /** True when these arguments make the call write files: needs lsp:write, never retried, audited. */
  write: boolean;
}

export function runTool(
  deps: ToolDeps,
  ctx: ServerContext,
  tool: string,
  body: (call: ToolCall) => Promise<CallToolResult>,
  options: ToolRunOptions = { write: false },
): Promise<CallToolResult> {
  const auditFields: LogFields = {};
  const state: CallState = {
    deps,
    tool,
    requestId: randomUUID(),
    write: options.write,
    principal: principalFrom(ctx.http?.authInfo) ?? deps.defaultPrincipal,
    auditFields,
    signal: ctx.mcpReq.signal,
  };
  const call = createToolCall({
    ...state,
    signal: ctx.mcpReq.signal,
    notifyProgress: progressNotifier(ctx),
  });
  if (!tracingEnabled()) return composeSteps(TOOL_CALL_STEPS, state, () => body(call));
  // The call's span covers the whole pipeline, refusals included.
  return traceToolCall(ctx, state, () => composeSteps(TOOL_CALL_STEPS, state, () => body(call)));
}

/** Numbered `notifications/progress` under the client's token; undefined when it asked for none. */
function progressNotifier(ctx: ServerContext): ((message: string, total?: number) => void) | undefined {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let progress = 0;
  return (message, total) => {
    if (ctx.mcpReq.signal.aborted) return;
    progress += 1;
    ctx.mcpReq
      .notify({
        method: "notifications/progress",
        params: { progressToken, progress, ...(total ? { total } : {}), message },
      })
      .catch(() => {});
  };
}
