// The lean per-call object tool bodies use: the caller, workspace resolution, and runner calls
// (routing, deadline, x-request-id, cancellation, one retry of idempotent reads on the next
// runner), progress notifications and audit details. The checks around it (caller, scope,
// limits, outcome, errors) are the pipeline's steps (pipeline/steps.ts).
import { type CallOptions, Metadata } from "@lspmesh/grpc";
import { REQUEST_ID_METADATA } from "@lspmesh/proto";
import { type LogFields, type Logger, waitAtMost } from "@lspmesh/service-kit";
import type { Principal } from "../auth/principal.js";
import { GatewayError } from "../errors.js";
import type { TenantLimiter } from "../limits/tenantLimiter.js";
import type { GatewayMetrics } from "../ops/metrics.js";
import type { RunnerClient, RunnerHandle, RunnerRouter } from "../routing/runnerRouter.js";
import type { SymbolIndexCache } from "../symbols/symbolIndexCache.js";
import type { TenantIndex } from "../symbols/tenantIndex.js";
import type { Caller, WorkspaceResolver, WorkspaceTarget } from "../workspaces.js";
import { noteWorkspace } from "./pipeline/toolCallSpan.js";
import { pollRunnerProgress } from "./progress.js";
import type { RunnerPart } from "./runnerPart.js";
import { internalError, isUnreachable, toGatewayError } from "./toolErrors.js";

/** How often a long runner call polls the workspace status for progress to forward, in ms. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 1000;
/** Longest a call waits for its tenant's symbol index to load, ms (default 10 s); then it asks live. */
export const SYMBOL_INDEX_WAIT_MS = 10_000;

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
  /** Told each workspace a call resolves (its last use, for idle TTLs). */
  readonly usage?: WorkspaceUsageSink | undefined;
  /** Answers remembered at the gateway: told when a write call to a workspace ended. */
  readonly answerCache?: { forget(tenant: string, workspace: string): void } | undefined;
}

export interface WorkspaceUsageSink {
  touch(tenant: string, workspace: string): void;
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

export interface WorkspaceSendOptions extends SendOptions {
  /** Only these languages; default the workspace's: configured ones, else those the runners serve. */
  languages?: readonly string[];
}

/** One runner call: the request, sent with the options the call object makes (deadline, request id, cancellation). */
export type RunnerRpc<T> = (runner: RunnerClient, options: CallOptions) => Promise<T>;

/** One call of a fan-out; `group` is what this runner is asked about (its languages, or its files). */
export type RunnerGroupRpc<T> = (runner: RunnerClient, options: CallOptions, group: string[]) => Promise<T>;

export type { RunnerPart } from "./runnerPart.js";

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
  /** The call about one file: to the runner of the file's language (NO_LANGUAGE_SERVER when none reads it). */
  sendForFile<T>(target: WorkspaceTarget, file: string, rpc: RunnerRpc<T>, options?: SendOptions): Promise<T>;
  /**
   * The call applying an edit to `files`: to the runner of the first file a language server reads
   * (it then tells that server); an edit of files no server reads (docs, data) goes to the
   * workspace's first language.
   */
  sendForEdit<T>(
    target: WorkspaceTarget,
    files: readonly string[],
    rpc: RunnerRpc<T>,
    options?: SendOptions,
  ): Promise<T>;
  /**
   * A call about the workspace's files as text (read, list, search; no language server): to the
   * runner of the first file's language, else the workspace's first language (as sendForEdit).
   */
  sendForText<T>(
    target: WorkspaceTarget,
    files: readonly string[],
    rpc: RunnerRpc<T>,
    options?: SendOptions,
  ): Promise<T>;
  /**
   * Calls about several files: one per language in parallel (`group` = that language's files). A
   * file no server reads is a failed part named by the file. Failures are returned, not thrown.
   */
  sendForFiles<T>(
    target: WorkspaceTarget,
    files: readonly string[],
    rpc: RunnerGroupRpc<T>,
    options?: SendOptions,
  ): Promise<Array<RunnerPart<T>>>;
  /**
   * A workspace-wide call: one per runner owning some of the workspace's languages, in parallel
   * (`group` = those languages). Failures are returned, not thrown.
   */
  sendToWorkspace<T>(
    target: WorkspaceTarget,
    rpc: RunnerGroupRpc<T>,
    options?: WorkspaceSendOptions,
  ): Promise<Array<RunnerPart<T>>>;
  /**
   * One runner call for (workspace, language): to the HRW-first runner, retried once on the next
   * one when the first is unreachable and the call is not a write.
   */
  send<T>(target: WorkspaceTarget, language: string, rpc: RunnerRpc<T>, options?: SendOptions): Promise<T>;
  /**
   * The given languages grouped by the runner that owns each, one call per runner in parallel
   * (`group` = the group's languages). Failures are returned, not thrown.
   */
  sendEach<T>(
    target: WorkspaceTarget,
    languages: readonly string[],
    rpc: RunnerGroupRpc<T>,
    options?: SendOptions,
  ): Promise<Array<RunnerPart<T>>>;
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
  const { deps, requestId, signal, auditFields } = input;
  const caller: Caller = { principal: input.principal };
  const send = <T>(target: WorkspaceTarget, language: string, rpc: RunnerRpc<T>, options: SendOptions = {}) =>
    sendWithFailover(input, target, language, rpc, options);
  const sendEach = <T>(
    target: WorkspaceTarget,
    languages: readonly string[],
    rpc: RunnerGroupRpc<T>,
    options: SendOptions = {},
  ) => sendPerRunner(input, target, languages, rpc, options);
  return {
    requestId,
    caller,
    signal,
    callTimeoutMs: deps.callTimeoutMs,
    workspace: async (requested) => {
      const target = await deps.workspaces.resolve(requested, caller);
      deps.usage?.touch(target.tenant, target.workspace);
      noteWorkspace(target);
      return target;
    },
    visibleWorkspaces: () => deps.workspaces.visible(caller),
    async symbolIndex() {
      const tenant = caller.principal?.tenant;
      if (!tenant || !deps.symbolIndex) return undefined;
      // A load that stalls must not hold the call: without an index, workspaces are asked live.
      return waitAtMost(deps.symbolIndex.tenant(tenant), SYMBOL_INDEX_WAIT_MS, signal);
    },
    sendForFile: async (target, file, rpc, options) => send(target, languageOf(deps, target, file), rpc, options),
    sendForEdit: async (target, files, rpc, options) => send(target, editLanguage(deps, target, files), rpc, options),
    sendForText: async (target, files, rpc, options) => send(target, editLanguage(deps, target, files), rpc, options),
    sendForFiles: async (target, files, rpc, options = {}) => sendPerLanguage(input, target, files, rpc, options),
    sendToWorkspace: async (target, rpc, options = {}) =>
      sendEach(target, options.languages ?? workspaceLanguages(deps, target), rpc, options),
    send,
    sendEach,
    progress: input.notifyProgress ?? (() => {}),
    audit(fields) {
      Object.assign(auditFields, fields);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Routing: which language a call goes by

/** The language a file is routed by (see RunnerRouter.languageOf); throws NO_LANGUAGE_SERVER. */
function languageOf(deps: ToolDeps, target: WorkspaceTarget, file: string): string {
  return deps.router.languageOf(target.tenant, file);
}

/** Languages of a workspace for workspace-wide calls: configured ones, else those the runners serve. */
function workspaceLanguages(deps: ToolDeps, target: WorkspaceTarget): string[] {
  const configured = deps.workspaces.languagesOf(target);
  if (configured && configured.length > 0) return [...configured];
  const served = deps.router.languagesFor(target.tenant);
  return served.length > 0 ? served : [""];
}

/** The first touched file a language server reads, else the workspace's first language. */
function editLanguage(deps: ToolDeps, target: WorkspaceTarget, files: readonly string[]): string {
  for (const file of files) {
    try {
      return languageOf(deps, target, file);
    } catch (error) {
      if (!(error instanceof GatewayError) || error.code !== "NO_LANGUAGE_SERVER") throw error;
    }
  }
  return workspaceLanguages(deps, target)[0] ?? "";
}

// ---------------------------------------------------------------------------------------------
// One runner call, with failover

async function sendWithFailover<T>(
  input: ToolCallInput,
  target: WorkspaceTarget,
  language: string,
  rpc: RunnerRpc<T>,
  options: SendOptions,
): Promise<T> {
  const candidates = input.deps.router.candidates({ ...target, language });
  const write = options.write === true || input.write;
  const retry = !write && options.failover !== false;
  const stopProgress = forwardProgress(input, candidates[0]!, target, options);
  try {
    return await tryInTurn(input, candidates.slice(0, retry ? 2 : 1), rpc, options);
  } finally {
    stopProgress();
    // Answered, failed or cut off: what this gateway remembers of the workspace may be stale.
    if (write) input.deps.answerCache?.forget(target.tenant, target.workspace);
  }
}

/** Polls the runner's progress for the client while a call runs; returns what stops it. */
function forwardProgress(
  input: ToolCallInput,
  runner: RunnerHandle,
  target: WorkspaceTarget,
  options: SendOptions,
): () => void {
  if (!input.notifyProgress || options.progress === false) return () => {};
  const interval = input.deps.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  return pollRunnerProgress(runner, target, input.notifyProgress, interval);
}

/** Asks the runners in turn: the next one only when the one before was unreachable. */
async function tryInTurn<T>(
  input: ToolCallInput,
  attempts: readonly RunnerHandle[],
  rpc: RunnerRpc<T>,
  options: SendOptions,
): Promise<T> {
  const { deps, signal } = input;
  for (let index = 0; ; index++) {
    const runner = attempts[index]!;
    if (signal.aborted) throw new GatewayError("UNAVAILABLE", "the request was cancelled; send it again");
    try {
      const answer = await rpc(runner.client, callOptions(input, options));
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
        requestId: input.requestId,
        tool: input.tool,
        runner: runner.id,
        next: next.id,
      });
    }
  }
}

function callOptions(input: ToolCallInput, options: SendOptions): CallOptions {
  const metadata = new Metadata();
  metadata.set(REQUEST_ID_METADATA, input.requestId);
  const timeoutMs = options.timeoutMs ?? input.deps.callTimeoutMs + (options.extraMs ?? 0);
  return { timeoutMs, metadata, signal: input.signal };
}

// ---------------------------------------------------------------------------------------------
// Fan-outs: several runner calls in parallel, each failure returned as a part

/** The languages grouped by the runner first in line for each; one call per group. */
async function sendPerRunner<T>(
  input: ToolCallInput,
  target: WorkspaceTarget,
  languages: readonly string[],
  rpc: RunnerGroupRpc<T>,
  options: SendOptions,
): Promise<Array<RunnerPart<T>>> {
  const groups = new Map<string, string[]>();
  const failures: Array<RunnerPart<T>> = [];
  for (const language of languages) {
    try {
      const first = input.deps.router.candidates({ ...target, language })[0]!;
      groups.set(first.id, [...(groups.get(first.id) ?? []), language]);
    } catch (error) {
      failures.push({ languages: [language], error: toGatewayError(error) ?? unexpected(input, error) });
    }
  }
  const answers = await Promise.all(
    [...groups.values()].map(async (group): Promise<RunnerPart<T>> => {
      try {
        const answer = await sendWithFailover(input, target, group[0]!, (r, o) => rpc(r, o, group), options);
        return { languages: group, answer };
      } catch (error) {
        return { languages: group, error: toGatewayError(error) ?? unexpected(input, error) };
      }
    }),
  );
  return [...answers, ...failures];
}

/** The files grouped by their language; one call per group. */
async function sendPerLanguage<T>(
  input: ToolCallInput,
  target: WorkspaceTarget,
  files: readonly string[],
  rpc: RunnerGroupRpc<T>,
  options: SendOptions,
): Promise<Array<RunnerPart<T>>> {
  const byLanguage = new Map<string, string[]>();
  const unserved: Array<RunnerPart<T>> = [];
  for (const file of files) {
    try {
      const language = languageOf(input.deps, target, file);
      byLanguage.set(language, [...(byLanguage.get(language) ?? []), file]);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      unserved.push({ languages: [file], error });
    }
  }
  const answers = await Promise.all(
    [...byLanguage].map(async ([language, group]): Promise<RunnerPart<T>> => {
      try {
        const answer = await sendWithFailover(input, target, language, (r, o) => rpc(r, o, group), options);
        return { languages: [language], answer };
      } catch (error) {
        // Anything but a coded error is a bug: it fails the whole call.
        const coded = toGatewayError(error);
        if (!coded) throw error;
        return { languages: [language || group[0]!], error: coded };
      }
    }),
  );
  return [...answers, ...unserved];
}

function unexpected(input: ToolCallInput, error: unknown): GatewayError {
  input.deps.logger.error("runner call failed unexpectedly", {
    requestId: input.requestId,
    tool: input.tool,
    error: String(error),
  });
  return internalError(input.requestId);
}
