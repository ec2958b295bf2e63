// The lean per-call object tool bodies use: the caller, workspace resolution, and runner calls
// (routing, deadline, x-request-id, cancellation, one retry of idempotent reads on the next
// runner), progress notifications and audit details. The checks around it (caller, scope,
// limits, outcome, errors) are the pipeline's steps (pipeline/steps.ts).
import { type CallOptions, Metadata } from "@lspmesh/grpc";
import { REQUEST_ID_METADATA } from "@lspmesh/proto";
import type { LogFields, Logger } from "@lspmesh/service-kit";
import type { Principal } from "../auth/principal.js";
import { GatewayError } from "../errors.js";
import type { TenantLimiter } from "../limits/tenantLimiter.js";
import type { GatewayMetrics } from "../ops/metrics.js";
import type { RunnerClient, RunnerRouter } from "../routing/runnerRouter.js";
import type { SymbolIndexCache } from "../symbols/symbolIndexCache.js";
import type { TenantIndex } from "../symbols/tenantIndex.js";
import type { Caller, WorkspaceResolver, WorkspaceTarget } from "../workspaces.js";
import { pollRunnerProgress } from "./progress.js";
import { internalError, isUnreachable, toGatewayError } from "./toolErrors.js";

/** How often a long runner call polls the workspace status for progress to forward, in ms. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 1000;

export interface ToolDeps {
  readonly router: RunnerRouter;
  readonly workspaces: WorkspaceResolver;
  readonly logger: Logger;
  /** Where audit lines go; default `logger`. The gateway passes one that ignores the log level. */
  readonly auditLogger?: Logger | undefined;
  /** Deadline of one runner call in ms (gateway default 30 000). */
  readonly callTimeoutMs: number;
  /** Per-tenant limits; absent = unlimited (single-machine mode). */
  readonly limiter?: TenantLimiter | undefined;
  readonly metrics?: GatewayMetrics | undefined;
  /** The caller when the transport carries none (stdio); HTTP always attaches a verified one. */
  readonly defaultPrincipal?: Principal | undefined;
  readonly progressIntervalMs?: number | undefined;
  /** Serve no tool that can write files (absent from tools/list, so never callable). */
  readonly readOnly?: boolean | undefined;
  /** The symbol indexes stored by the runners (search_symbols); absent = searches ask live servers. */
  readonly symbolIndex?: SymbolIndexCache | undefined;
}

export interface SendOptions {
  /** Extra deadline on top of callTimeoutMs (e.g. diagnostics' wait_ms), in ms. */
  extraMs?: number;
  /** A write: never retried on another runner. */
  write?: boolean;
  /** Overrides the whole deadline (fan-out calls share one), in ms. */
  timeoutMs?: number;
  /**
   * Retry an unreachable runner's read on the next one (default true). Fan-outs under a short
   * deadline turn it off: a cold start elsewhere cannot finish in time, so the gap is reported.
   */
  failover?: boolean;
  /** Forward the runner's work-done progress while this call runs (default true when the client asked for progress). */
  progress?: boolean;
}

/** The per-call services a tool body uses. */
export interface ToolCall {
  readonly requestId: string;
  readonly caller: Caller;
  /** Aborted when the MCP client cancels or disconnects. */
  readonly signal: AbortSignal;
  /** Deadline of one runner call, in ms (fan-outs use it as their ceiling). */
  readonly callTimeoutMs: number;
  /** Resolves the `workspace` argument for this caller (NOT_FOUND alike for missing and foreign ones). */
  workspace(requested: string | undefined): Promise<WorkspaceTarget>;
  /** Every workspace this caller may see. */
  visibleWorkspaces(): Promise<WorkspaceTarget[]>;
  /**
   * The symbol indexes of the caller's own tenant (no call can reach another tenant's); undefined
   * when the gateway has no index store or the tenant has nothing stored yet.
   */
  symbolIndex(): Promise<TenantIndex | undefined>;
  /** Languages of a workspace for workspace-wide calls: configured ones, else those the runners serve. */
  languagesOf(target: WorkspaceTarget): string[];
  /** The language a file is routed by (see RunnerRouter.languageOf); throws NO_LANGUAGE_SERVER. */
  languageOf(target: WorkspaceTarget, file: string): string;
  /**
   * One runner call for (workspace, language): to the HRW-first runner, retried once on the next
   * one when the first is unreachable and the call is not a write.
   */
  send<T>(
    target: WorkspaceTarget,
    language: string,
    rpc: (runner: RunnerClient, options: CallOptions) => Promise<T>,
    options?: SendOptions,
  ): Promise<T>;
  /**
   * A workspace-wide call: the workspace's languages grouped by the runner that owns each, one call
   * per runner in parallel (`languages` = the group's languages). Failures are returned, not thrown.
   */
  sendEach<T>(
    target: WorkspaceTarget,
    languages: readonly string[],
    rpc: (runner: RunnerClient, options: CallOptions, languages: string[]) => Promise<T>,
    options?: SendOptions,
  ): Promise<Array<{ languages: string[]; answer?: T; error?: GatewayError }>>;
  /** Sends `notifications/progress` when the client asked for progress; a no-op otherwise. */
  progress(message: string, total?: number): void;
  /** Adds details (workspace, files) to the audit line every write call gets when it ends. */
  audit(fields: LogFields): void;
}

/** What a call object is made from: who calls, what for, and how to tell the client about progress. */
export interface ToolCallInput {
  readonly deps: ToolDeps;
  readonly tool: string;
  readonly requestId: string;
  readonly principal: Principal | undefined;
  /** The call writes files: runner calls are never retried on another runner. */
  readonly write: boolean;
  /** Aborted when the MCP client cancels or disconnects. */
  readonly signal: AbortSignal;
  /** Sends one `notifications/progress`; absent when the client asked for none. */
  readonly notifyProgress?: ((message: string, total?: number) => void) | undefined;
  /** Where `audit()` details go. */
  readonly auditFields: LogFields;
}

export function createToolCall(input: ToolCallInput): ToolCall {
  const { deps, tool, requestId, signal, auditFields } = input;
  const caller: Caller = { principal: input.principal };
  const notifyProgress = input.notifyProgress ?? (() => {});
  const forwardsProgress = input.notifyProgress !== undefined;
  const runOptions = { write: input.write };
  const call: ToolCall = {
    requestId,
    caller,
    signal,
    callTimeoutMs: deps.callTimeoutMs,
    workspace: (requested) => deps.workspaces.resolve(requested, caller),
    visibleWorkspaces: () => deps.workspaces.visible(caller),
    async symbolIndex() {
      const tenant = caller.principal?.tenant;
      return tenant && deps.symbolIndex ? deps.symbolIndex.tenant(tenant) : undefined;
    },
    languagesOf(target) {
      const configured = deps.workspaces.languagesOf(target);
      if (configured && configured.length > 0) return [...configured];
      const served = deps.router.languagesFor(target.tenant);
      return served.length > 0 ? served : [""];
    },
    languageOf: (target, file) => deps.router.languageOf(target.tenant, file),
    async send(target, language, rpc, options = {}) {
      const candidates = deps.router.candidates({ ...target, language });
      const retry = !options.write && !runOptions.write && options.failover !== false;
      const attempts = candidates.slice(0, retry ? 2 : 1);
      const stopProgress =
        forwardsProgress && options.progress !== false
          ? pollRunnerProgress(
              candidates[0]!,
              target,
              notifyProgress,
              deps.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
            )
          : () => {};
      try {
        for (let index = 0; ; index++) {
          const runner = attempts[index]!;
          if (signal.aborted) throw new GatewayError("UNAVAILABLE", "the request was cancelled; send it again");
          try {
            const answer = await rpc(runner.client, callOptions(options));
            deps.router.reportAnswered(runner.id);
            deps.metrics?.runnerCalls.inc({ runner: runner.id, outcome: "ok" });
            return answer;
          } catch (error) {
            const unreachable = isUnreachable(error);
            deps.metrics?.runnerCalls.inc({ runner: runner.id, outcome: unreachable ? "unavailable" : "error" });
            // An error the runner wrote is an answer: the runner is reachable.
            if (!unreachable) deps.router.reportAnswered(runner.id);
            if (!unreachable || signal.aborted) throw error;
            deps.router.reportUnavailable(runner.id);
            const next = attempts[index + 1];
            if (!next) throw error;
            deps.logger.warn("runner unavailable; retrying on the next runner", {
              requestId,
              tool,
              runner: runner.id,
              next: next.id,
            });
          }
        }
      } finally {
        stopProgress();
      }
    },
    async sendEach(target, languages, rpc, options = {}) {
      const groups = new Map<string, string[]>();
      const failures: Array<{ languages: string[]; error: GatewayError }> = [];
      for (const language of languages) {
        try {
          const first = deps.router.candidates({ ...target, language })[0]!;
          groups.set(first.id, [...(groups.get(first.id) ?? []), language]);
        } catch (error) {
          failures.push({ languages: [language], error: toGatewayError(error) ?? unexpected(error) });
        }
      }
      const answers = await Promise.all(
        [...groups.values()].map(async (group) => {
          try {
            const answer = await call.send(target, group[0]!, (runner, o) => rpc(runner, o, group), options);
            return { languages: group, answer };
          } catch (error) {
            return { languages: group, error: toGatewayError(error) ?? unexpected(error) };
          }
        }),
      );
      return [...answers, ...failures];
    },
    progress: notifyProgress,
    audit(fields) {
      Object.assign(auditFields, fields);
    },
  };

  function unexpected(error: unknown): GatewayError {
    deps.logger.error("runner call failed unexpectedly", { requestId, tool, error: String(error) });
    return internalError(requestId);
  }

  function callOptions(options: SendOptions): CallOptions {
    const metadata = new Metadata();
    metadata.set(REQUEST_ID_METADATA, requestId);
    return { timeoutMs: options.timeoutMs ?? deps.callTimeoutMs + (options.extraMs ?? 0), metadata, signal };
  }

  return call;
}
