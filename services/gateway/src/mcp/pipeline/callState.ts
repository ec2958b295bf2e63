// A tool call as it passes through the pipeline: what every step may read, and the few things
// steps fill in for the ones outside them (the caller, audit details).
import type { LogFields } from "@lspmesh/service-kit";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Principal } from "../../auth/principal.js";
import type { ToolDeps } from "../toolCall.js";

export interface CallState {
  readonly deps: ToolDeps;
  readonly tool: string;
  readonly requestId: string;
  /** The call's arguments make it write files: lsp:write, never retried, audited. */
  readonly write: boolean;
  /** The verified caller, when the transport carried one (or the deployment's default one). */
  readonly principal: Principal | undefined;
  /** Details the tool adds for the audit line (workspace, files). */
  readonly auditFields: LogFields;
  /** Aborted when the caller cancels or goes away. */
  readonly signal?: AbortSignal;
}

/** One step around the rest of the pipeline: runs `next`, or answers without it. */
export type CallStep = (state: CallState, next: () => Promise<CallToolResult>) => Promise<CallToolResult>;

/** The steps in order, outermost first, around `body`. */
export function composeSteps(
  steps: readonly CallStep[],
  state: CallState,
  body: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const run = (index: number): Promise<CallToolResult> => {
    const step = steps[index];
    return step ? step(state, () => run(index + 1)) : body();
  };
  return run(0);
}
