// The steps every tool call passes, outermost first: record the outcome (metrics, log line,
// audit), turn errors into tool results, require a caller, require the write scope, admit the
// call under the tenant's limits.
import { missingScope, scopeFor } from "../../auth/scopeDecision.js";
import { GatewayError } from "../../errors.js";
import { counted } from "../text.js";
import { errorCodeOf, internalError, toGatewayError, toolErrorResult } from "../toolErrors.js";
import type { CallStep } from "./callState.js";

/** Counts and times the call, logs one line, and one audit line for a write whatever its outcome. */
export const recordOutcome: CallStep = async (state, next) => {
  const started = performance.now();
  const result = await next();
  const { deps, tool, requestId, principal } = state;
  const tenant = principal?.tenant ?? "";
  const code = errorCodeOf(result);
  const outcome = code ? "error" : "ok";
  const durationMs = Math.round(performance.now() - started);
  const label = deps.metrics?.tenant(tenant) ?? "";
  deps.metrics?.toolCalls.inc({ tool, tenant: label, outcome });
  deps.metrics?.toolDuration.observe({ tool, tenant: label }, durationMs / 1000);
  if (code) deps.metrics?.toolErrors.inc({ tool, tenant: label, code });
  deps.logger.info("tool call", { requestId, tool, tenant, durationMs, outcome, code });
  if (state.write) {
    (deps.auditLogger ?? deps.logger).info("audit", {
      requestId,
      tool,
      tenant,
      subject: principal?.subject,
      outcome,
      code,
      ...state.auditFields,
    });
  }
  return result;
};

/** Coded errors become tool errors; anything else is a bug: logged, and answered without internals. */
export const errorResult: CallStep = async (state, next) => {
  try {
    return await next();
  } catch (error) {
    const coded = toGatewayError(error);
    if (coded) return toolErrorResult(coded, state.requestId);
    state.deps.logger.error("tool call failed unexpectedly", {
      requestId: state.requestId,
      tool: state.tool,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return toolErrorResult(internalError(state.requestId), state.requestId);
  }
};

export const requireCaller: CallStep = (state, next) => {
  if (!state.principal)
    throw new GatewayError("FORBIDDEN", "this call carries no verified caller; send a bearer token");
  return next();
};

export const requireWriteScope: CallStep = (state, next) => {
  if (state.principal && missingScope(state.principal, scopeFor(state.write))) {
    throw new GatewayError(
      "FORBIDDEN",
      state.write
        ? "this call writes files and the token lacks the lsp:write scope; use a token with lsp:write, or preview with apply: false"
        : "the token lacks the lsp:read scope; use a token with lsp:read",
    );
  }
  return next();
};

/** Admits the call under the tenant's rate and concurrency limits, or answers RATE_LIMITED at once. */
export const admitTenant: CallStep = async (state, next) => {
  const { limiter, metrics } = state.deps;
  if (!limiter || !state.principal) return next();
  const admission = limiter.admit(state.principal.tenant);
  if (!admission.ok) {
    metrics?.rateLimited.inc({ tenant: metrics.tenant(state.principal.tenant), reason: admission.reason });
    const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
    const limit =
      admission.reason === "rate"
        ? `${counted(admission.limits.callsPerSecond, "call")} per second`
        : `${counted(admission.limits.concurrentCalls, "call")} at once`;
    const error = new GatewayError("RATE_LIMITED", `too many calls: the limit is ${limit}; retry after ${seconds} s`);
    return toolErrorResult(error, state.requestId, { retryAfterMs: admission.retryAfterMs });
  }
  // The slot is the caller's while it waits: one it abandoned (cancelled, disconnected) is given
  // back at once, whatever the work it left behind still does.
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    admission.release();
  };
  state.signal?.addEventListener("abort", release, { once: true });
  try {
    return await next();
  } finally {
    state.signal?.removeEventListener("abort", release);
    release();
  }
};

/** The pipeline every tool call runs through, outermost first. */
export const TOOL_CALL_STEPS: readonly CallStep[] = [
  recordOutcome,
  errorResult,
  requireCaller,
  requireWriteScope,
  admitTenant,
];
