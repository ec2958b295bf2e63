// restart_language_server: stops a workspace's server of one language and starts it again, for a
// server that is stuck or wrong after changes it missed. It disturbs every call using that server,
// so it needs lsp:write, is hidden under --read-only, and is rate-limited (limits/restartLimiter.ts).
import type { RestartServerAnswer, WorkspaceStatusAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { type RestartAdmission, RestartLimiter, type RestartTarget } from "../../limits/restartLimiter.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import { defineTool, type GatewayTool, type ToolAnswer } from "../defineTool.js";
import { counted } from "../text.js";
import type { RunnerPart, ToolCall } from "../toolCall.js";
import { waitArgument, wireWaitMs } from "../toolSupport/diagnosticsDelta.js";
import { answerStatusShape, statusFrom, workspaceArgument } from "../toolSupport/shared.js";

/**
 * Default and largest wait for the new server to be ready, in ms. The default stays under the
 * 60 s request timeout of the official MCP clients: a server that indexes longer (clangd on a
 * whole C++ project) is answered as not ready yet, rather than the client giving up on the call.
 */
export const DEFAULT_WAIT_MS = 45_000;
const MAX_WAIT_MS = 120_000;

const input = z.object({
  workspace: workspaceArgument,
  language: z
    .string({ error: "language must be a string, e.g. typescript" })
    .min(1, { error: "language must not be empty; workspace_status lists the workspace's languages" })
    .max(100, { error: "language is longer than 100 characters" })
    .describe("Language id of the server to restart, e.g. typescript or python (workspace_status lists them)."),
  wait_ms: waitArgument(
    DEFAULT_WAIT_MS,
    "Milliseconds to wait for the new server to be ready; 0 answers once it is started",
    MAX_WAIT_MS,
  ),
});

const output = z.object({
  ...answerStatusShape,
  workspace: z.string().describe("The workspace whose server was restarted."),
  was_running: z.boolean().describe("False when no server of this language ran: it was started, not restarted."),
  restarts: z.number().int().describe("Restarts of this workspace's server so far, this one included."),
});

type RestartOutput = z.output<typeof output>;

/** "Restarted the typescript server of workspace 'web': ready (restart #3)." or why it is not ready yet. */
export function restartAnswer(
  answer: RestartServerAnswer,
  workspace: string,
  language: string,
): ToolAnswer<RestartOutput> {
  const status = statusFrom(answer.status);
  const server = `the ${status.language || language} server of workspace '${workspace}'`;
  const done = answer.wasRunning ? `Restarted ${server}` : `Started ${server} (it was not running)`;
  const count = answer.restarts > 0 ? ` (restart #${answer.restarts})` : "";
  const note = status.note ? ` (${status.note})` : "";
  let text: string;
  if (status.state === "ready")
    text = `${done}: ready${count}.${status.partial && status.note ? ` Note: ${status.note}.` : ""}`;
  else if (status.state === "failed")
    text = `${done}, but it failed${note}${count}. workspace_status shows its last error; fix the cause before restarting again.`;
  else
    text = `${done}, but it is not ready yet: ${status.state}${note}${count}. Answers stay partial until it is; workspace_status shows its progress.`;
  return {
    text,
    structured: { ...status, workspace, was_running: answer.wasRunning, restarts: answer.restarts },
  };
}

/**
 * The workspace's languages, for checking the argument: the ones the workspace is configured for
 * or its runners serve (the fan-out's groups), and the ones whose server has started (a runner that
 * decides languages for itself serves any). Empty when nothing is known.
 */
export function knownLanguages(parts: ReadonlyArray<RunnerPart<WorkspaceStatusAnswer>>): {
  routed: string[];
  started: string[];
} {
  const routed = new Set(parts.flatMap((part) => part.languages).filter((language) => language !== ""));
  const started = new Set(parts.flatMap((part) => part.answer?.languages.map((status) => status.language) ?? []));
  return { routed: [...routed].sort(), started: [...started].sort() };
}

/** Refuses a language the workspace does not have, naming the ones it has; passes when nothing is known. */
export function checkLanguage(language: string, workspace: string, known: ReturnType<typeof knownLanguages>): void {
  if (known.routed.length > 0) {
    if (known.routed.includes(language)) return;
    throw new GatewayError(
      "INVALID_ARGUMENT",
      `workspace '${workspace}' has no ${language} server; its languages: ${known.routed.join(", ")}`,
    );
  }
  if (known.started.length === 0 || known.started.includes(language)) return;
  throw new GatewayError(
    "INVALID_ARGUMENT",
    `no ${language} server has started for workspace '${workspace}'; nothing to restart — its servers are ${known.started.join(", ")} (C and C++ files are served by cpp, JavaScript by typescript); a server not started yet starts with the first query on a file of its language`,
  );
}

/** The RATE_LIMITED error of a refused restart, saying which limit and when to retry. */
function rateLimited(admission: Extract<RestartAdmission, { ok: false }>, target: RestartTarget): GatewayError {
  const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
  const limit =
    admission.reason === "server"
      ? `the ${target.language} server of workspace '${target.workspace}' was restarted less than ${admission.limits.perServerIntervalMs / 1000} s ago (one restart per ${admission.limits.perServerIntervalMs / 1000} s)`
      : `${counted(admission.limits.perTenant, "restart")} per ${admission.limits.windowMs / 1000} s is this tenant's limit`;
  return new GatewayError("RATE_LIMITED", `${limit}; retry after ${seconds} s`);
}

/** The tool over a given limiter (one per gateway process by default; tests pass their own). */
export function createRestartLanguageServerTool(limiter: RestartLimiter): GatewayTool {
  return defineTool({
    name: "restart_language_server",
    title: "Restart language server",
    description:
      "Stop a workspace's language server of one language and start it again, then wait until it is ready: for a server that is stuck, " +
      "failed, or answers from a stale view (files changed behind its back, dependencies installed). Every call using that server is " +
      "disturbed, so it needs the lsp:write scope and is limited to one restart per server per 30 s and 10 per tenant per minute. " +
      "Check workspace_status first; it names the languages.",
    input,
    output,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    writes: () => true,
    async run(args, call) {
      const workspace = await call.workspace(args.workspace);
      checkLanguage(args.language, workspace.workspace, await languagesOf(call, workspace));
      const target = { tenant: workspace.tenant, workspace: workspace.workspace, language: args.language };
      const admission = limiter.admit(target);
      if (!admission.ok) throw rateLimited(admission, target);
      call.audit({ workspace: workspace.workspace, language: args.language });
      try {
        const answer = await call.send(
          workspace,
          args.language,
          (runner, options) =>
            runner.restartServer({ workspace, language: args.language, waitMs: wireWaitMs(args.wait_ms) }, options),
          // The runner waits up to wait_ms for the new server: the deadline grows by that much.
          { write: true, extraMs: args.wait_ms },
        );
        return restartAnswer(answer, workspace.workspace, args.language);
      } catch (error) {
        // Refused or unreachable: no restart happened, so it does not count against the limits.
        admission.cancel();
        throw error;
      }
    },
  });
}

/** The workspace's languages, from a status call to each of its runners (cheap: no server is asked). */
async function languagesOf(call: ToolCall, workspace: WorkspaceTarget) {
  const parts = await call.sendToWorkspace(
    workspace,
    (runner, options) => runner.workspaceStatus({ workspace }, options),
    { progress: false },
  );
  return knownLanguages(parts);
}

export const restartLanguageServerTool = createRestartLanguageServerTool(new RestartLimiter());
