// The checks an /mcp request passes before MCP serving sees it. Each is a small function that
// returns what it established about the request, or the refusal that answers it (refusals.ts
// writes every refusal); httpServer.ts lists them in the order they run, and admit() runs them.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Authenticator } from "../auth/authenticator.js";
import type { Principal } from "../auth/principal.js";
import type { TenantLimiter } from "../limits/tenantLimiter.js";
import type { AdmittedMcpRequest } from "../mcp/serving/admittedRequest.js";
import type { GatewayMetrics } from "../ops/metrics.js";
import { type Allowlists, hostRefusal, originRefusal } from "./allowlists.js";
import type { HttpRefusal } from "./refusals.js";

/** What the guards passed so far established about the request. */
export interface RequestFacts {
  readonly principal?: Principal;
  readonly body?: Buffer;
  readonly parsed?: unknown;
}

export type GuardResult = { ok: true; facts?: RequestFacts } | { ok: false; refusal: HttpRefusal };

export type McpGuard = (
  req: IncomingMessage,
  res: ServerResponse,
  facts: RequestFacts,
) => GuardResult | Promise<GuardResult>;

const PASSED: GuardResult = { ok: true };
const refused = (refusal: HttpRefusal): GuardResult => ({ ok: false, refusal });

/** Runs `guards` in order: the admitted request, or the first refusal. */
export async function admit(
  guards: readonly McpGuard[],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ ok: true; request: AdmittedMcpRequest } | { ok: false; refusal: HttpRefusal }> {
  let facts: RequestFacts = {};
  for (const guard of guards) {
    const result = await guard(req, res, facts);
    if (!result.ok) return result;
    if (result.facts) facts = { ...facts, ...result.facts };
  }
  return { ok: true, request: { req, principal: callerOf(facts), body: facts.body, parsed: facts.parsed } };
}

/** DNS rebinding: a Host header outside the allowlist, when there is one. */
export function allowedHost(allowlists: Allowlists): McpGuard {
  const refusalOf = hostRefusal(allowlists);
  return (req) => {
    const message = refusalOf(req);
    return message === undefined ? PASSED : refused({ kind: "forbidden", message });
  };
}

/** A browser page from an origin not allowed to drive the tools. */
export function allowedOrigin(allowlists: Allowlists): McpGuard {
  const refusalOf = originRefusal(allowlists);
  return (req) => {
    const message = refusalOf(req);
    return message === undefined ? PASSED : refused({ kind: "forbidden", message });
  };
}

/**
 * The caller a bearer token stands for. A request without a valid token is first charged to its
 * client address (floods of unauthenticated requests, token guessing): over that limit it gets
 * 429, else 401.
 */
export function authenticatedCaller(authenticator: Authenticator, unauthenticatedLimiter?: TenantLimiter): McpGuard {
  return async (req) => {
    const outcome = await authenticator.authenticate(req.headers.authorization);
    if (outcome.ok) return { ok: true, facts: { principal: outcome.principal } };
    const retryAfterMs = overLimit(unauthenticatedLimiter, req.socket.remoteAddress ?? "");
    if (retryAfterMs !== undefined)
      return refused({ kind: "rate_limited", retryAfterMs, what: "unauthenticated requests from this address" });
    const { description } = outcome;
    return refused(outcome.error ? { kind: "invalid_token", description } : { kind: "missing_token", description });
  };
}

/** Charges one request to `key`: when over the limit, the ms to wait; the rate counts, nothing is held. */
function overLimit(limiter: TenantLimiter | undefined, key: string): number | undefined {
  const admission = limiter?.admit(key);
  if (!admission) return undefined;
  if (!admission.ok) return admission.retryAfterMs;
  admission.release();
  return undefined;
}

/** The tenant's ceiling on HTTP requests; an admitted request holds its place until its response closes. */
export function withinTenantRequestRate(limiter?: TenantLimiter, metrics?: GatewayMetrics): McpGuard {
  if (!limiter) return () => PASSED;
  return (_req, res, facts) => {
    const tenant = callerOf(facts).tenant;
    const admission = limiter.admit(tenant);
    if (!admission.ok) {
      metrics?.rateLimited.inc({ tenant: metrics.tenant(tenant), reason: "http" });
      return refused({ kind: "rate_limited", retryAfterMs: admission.retryAfterMs, what: "requests" });
    }
    res.once("close", admission.release);
    return PASSED;
  };
}

/** A POST's whole body, read here and parsed once for everything after; 413 beyond `maxBytes`. */
export function bodyWithinLimit(maxBytes: number): McpGuard {
  return async (req) => {
    if (req.method !== "POST") return PASSED;
    const body = await readBody(req, maxBytes);
    if (!body) return refused({ kind: "body_too_large" });
    const parsed = parseJson(body);
    if (nestedDeeperThan(parsed, MAX_JSON_DEPTH)) return refused({ kind: "too_deep", limit: MAX_JSON_DEPTH });
    return { ok: true, facts: { body, parsed } };
  };
}

function callerOf(facts: RequestFacts): Principal {
  if (!facts.principal) throw new Error("the /mcp guards must authenticate the caller first");
  return facts.principal;
}

/**
 * The whole body, or undefined when it is larger than `limit` bytes (the rest is drained unread).
 * Read with 'data' and 'end' listeners rather than an async iterator, which costs a promise and a
 * tick per chunk on every tool call; a request that ends early (client gone) rejects.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      done();
      req.resume();
      resolve(undefined);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => onError(Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/** Deepest nesting of arrays and objects a request body may have (default 64; tool arguments use about 8). */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests arrays or objects more than `limit` deep; walked without recursion. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The JSON value of `body`; undefined when it is not JSON (the MCP SDK answers that with a parse error). */
function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}
