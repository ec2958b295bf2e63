// The gateway's HTTP surface: MCP (Streamable HTTP) at /mcp behind Host/Origin checks and bearer
// authentication; RFC 9728 protected-resource metadata; /healthz, /readyz and /metrics; 404 elsewhere.
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "@lspmesh/service-kit";
import { hostHeaderValidation, toNodeHandler } from "@modelcontextprotocol/node";
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  type JSONRPCRequest,
  type McpHttpHandler,
  OAuthError,
  OAuthErrorCode,
} from "@modelcontextprotocol/server";
import type { Authenticator } from "../auth/authenticator.js";
import { authInfoFor, type Principal, SCOPES, type Scope } from "../auth/principal.js";
import { missingScope } from "../auth/scopeDecision.js";
import type { TenantLimiter } from "../limits/tenantLimiter.js";
import type { GatewayMetrics } from "../ops/metrics.js";
import { type Allowlists, originGuard } from "./allowlists.js";
import { InFlightRequests } from "./inFlightRequests.js";
import type { SharedToolCalls } from "./sharedToolCalls.js";

export const MCP_PATH = "/mcp";
export const HEALTH_PATH = "/healthz";
export const READY_PATH = "/readyz";
export const METRICS_PATH = "/metrics";
/** RFC 9728: metadata of the resource https://host/mcp lives at /.well-known/oauth-protected-resource/mcp. */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** Largest MCP request body accepted, in bytes (the MCP SDK's default). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpServerOptions {
  /** Serves POST/GET/DELETE /mcp (the SDK's handler, with JSON answers where no progress is wanted). */
  mcp: Pick<McpHttpHandler, "fetch">;
  /** Answers the plain tool calls (2025-era, no progress) without the SDK's per-request serving. */
  toolCalls?: SharedToolCalls | undefined;
  allowlists: Allowlists;
  logger: Logger;
  authenticator: Authenticator;
  /** The scope one JSON-RPC message needs (tools/call of a write needs lsp:write). */
  requiredScope: (message: unknown) => Scope;
  /** Public base URL (https://lspmesh.example.com) for the resource metadata; default from the Host header. */
  publicUrl?: string | undefined;
  /** Authorization servers that issue tokens for this resource (the JWT issuer), for the metadata. */
  authorizationServers?: string[] | undefined;
  /** Readiness: undefined when ready, else why not. */
  notReady: () => string | undefined;
  /** Ready but degraded (e.g. routing on the last known registry): why, or undefined. */
  degraded?: () => string | undefined;
  metrics?: GatewayMetrics | undefined;
  /**
   * Per-tenant ceiling on HTTP requests to /mcp; over it: 429 with Retry-After. Set well above the
   * tool-call limits (which answer RATE_LIMITED tool errors a model can act on), it only stops
   * floods that never reach a tool: initialize, tools/list, pings.
   */
  requestLimiter?: TenantLimiter | undefined;
  /**
   * Per client address: requests that bring no valid token (floods of unauthenticated requests,
   * token guessing); over it 429.
   */
  unauthenticatedLimiter?: TenantLimiter | undefined;
  /**
   * /metrics on this port: open in single-user mode (no tokens); with tokens only for a request
   * bearing this token (LSPMESH_METRICS_TOKEN_FILE), else 404 — serve it on its own listener.
   */
  metricsToken?: (() => string | undefined) | undefined;
  /** Most open connections (default 1024); beyond, new ones are closed at once. */
  maxConnections?: number | undefined;
  /** Cut-offs for slow and idle clients (defaults: HTTP_TIMEOUT_DEFAULTS). */
  timeouts?: HttpTimeouts | undefined;
}

/** How long a client may take, in ms; each unset one keeps its default (HTTP_TIMEOUT_DEFAULTS). */
export interface HttpTimeouts {
  /** Whole request headers within this time: a client sending byte by byte is cut off (default 10 000). */
  headersMs?: number | undefined;
  /**
   * Whole request (headers and body) within this time (default 30 000); answers may take as long
   * as they need. Node wants it larger than headersMs (or 0, off).
   */
  requestMs?: number | undefined;
  /** An idle kept-alive connection is closed after this (default 5 000). */
  keepAliveMs?: number | undefined;
  /** How often the header and request timeouts are checked (default 1 000; Node's 30 s lets slow clients linger). */
  checkIntervalMs?: number | undefined;
}

/** The production cut-offs, in ms. */
export const HTTP_TIMEOUT_DEFAULTS = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkIntervalMs: 1_000,
} as const satisfies Required<HttpTimeouts>;

const DEFAULT_MAX_CONNECTIONS = 1024;

export function createHttpServer(options: HttpServerOptions): Server {
  const serveMcp = toNodeHandler(options.mcp, {
    onerror: (error) => options.logger.error("mcp handler failed", { error: error.message }),
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  const checkHost = options.allowlists.hosts ? hostHeaderValidation(options.allowlists.hosts) : () => true;
  const checkOrigin = originGuard(options.allowlists);
  const inFlight = new InFlightRequests();

  // Never from the Host header (a caller could make the metadata name any resource): the public
  // URL, else the address this connection reached (the gateway requires a public URL off loopback).
  const baseUrl = (req: IncomingMessage) =>
    (options.publicUrl ?? `http://${urlHost(req.socket.localAddress ?? "127.0.0.1")}:${req.socket.localPort}`).replace(
      /\/+$/,
      "",
    );
  const metadataUrl = (req: IncomingMessage) =>
    getOAuthProtectedResourceMetadataUrl(new URL(`${baseUrl(req)}${MCP_PATH}`));

  /** 401 to a request without credentials: RFC 6750 (3.1) wants no error code then, which the SDK's challenge always adds. */
  const askForToken = (req: IncomingMessage, res: ServerResponse, description: string) => {
    res
      .writeHead(401, {
        "content-type": "application/json",
        "www-authenticate": `Bearer resource_metadata="${metadataUrl(req)}", error_description="${description.replaceAll('"', "'")}"`,
        "cache-control": "no-store",
      })
      .end(JSON.stringify({ error: "unauthorized", error_description: description }));
  };

  /** 401 invalid_token or 403 insufficient_scope, with the SDK's RFC 6750 / RFC 9728 challenge. */
  const refuse = async (
    req: IncomingMessage,
    res: ServerResponse,
    code: OAuthErrorCode.InvalidToken | OAuthErrorCode.InsufficientScope,
    description: string,
    requiredScopes?: Scope[],
  ) => {
    const answer = bearerAuthChallengeResponse(new OAuthError(code, description), {
      requiredScopes,
      resourceMetadataUrl: metadataUrl(req),
    });
    res
      .writeHead(answer.status, { ...Object.fromEntries(answer.headers), "cache-control": "no-store" })
      .end(await answer.text());
  };

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Each guard answers 403 itself when it refuses.
    if (!checkHost(req, res) || !checkOrigin(req, res)) return;
    const outcome = await options.authenticator.authenticate(req.headers.authorization);
    if (!outcome.ok && tooManyUnauthenticated(req, res)) return;
    if (!outcome.ok) {
      if (outcome.error) await refuse(req, res, OAuthErrorCode.InvalidToken, outcome.description);
      else askForToken(req, res, outcome.description);
      return;
    }
    const principal = outcome.principal;
    const admission = options.requestLimiter?.admit(principal.tenant);
    if (admission && !admission.ok) {
      const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
      options.metrics?.rateLimited.inc({ tenant: options.metrics.tenant(principal.tenant), reason: "http" });
      res
        .writeHead(429, { "content-type": "application/json", "retry-after": String(seconds) })
        .end(
          JSON.stringify({ error: "rate_limited", error_description: `too many requests; retry after ${seconds} s` }),
        );
      return;
    }
    if (admission?.ok) res.once("close", admission.release);
    let body: Buffer | undefined;
    let parsed: unknown;
    if (req.method === "POST") {
      body = await readBody(req, MAX_BODY_BYTES);
      if (!body) {
        res.writeHead(413, { "content-type": "text/plain; charset=utf-8" }).end("request body too large");
        return;
      }
      parsed = parseJson(body);
      const missing = scopeMissingFor(principal, parsed);
      if (missing) {
        const scopes: Scope[] = missing === "lsp:write" ? ["lsp:read", "lsp:write"] : [missing];
        await refuse(req, res, OAuthErrorCode.InsufficientScope, `this token lacks the ${missing} scope`, scopes);
        return;
      }
    } else if (missingScope(principal, "lsp:read")) {
      await refuse(req, res, OAuthErrorCode.InsufficientScope, "this token lacks the lsp:read scope", ["lsp:read"]);
      return;
    }
    if (parsed !== undefined) {
      const origin = { tenant: principal.tenant, subject: principal.subject, address: req.socket.remoteAddress ?? "" };
      if (inFlight.cancel(origin, parsed) > 0) options.logger.debug("request cancelled by the client", origin);
      inFlight.track(origin, parsed, res);
    }
    if (options.toolCalls?.takes(req.headers, parsed)) {
      await answerToolCall(options.toolCalls, parsed, principal, res);
      return;
    }
    // The body was read for the scope check; the handler gets it replayed, and the verified
    // caller (never the token) as req.auth.
    const replay = {
      method: req.method,
      url: req.url,
      headers: req.headers,
      auth: authInfoFor(principal),
      async *[Symbol.asyncIterator]() {
        if (body && body.length > 0) yield body;
      },
    };
    // Parsed once here: the MCP handler takes the parsed body instead of parsing it again.
    await serveMcp(replay, res, parsed);
  }

  /** One JSON body with the shared server's answer; a response closed first (client gone, cancelled) aborts the call. */
  async function answerToolCall(
    toolCalls: SharedToolCalls,
    request: JSONRPCRequest,
    principal: Principal,
    res: ServerResponse,
  ): Promise<void> {
    const gone = new AbortController();
    const onClose = () => gone.abort();
    res.once("close", onClose);
    try {
      const answer = await toolCalls.answer(request, authInfoFor(principal), gone.signal);
      if (res.destroyed) return;
      // No answer while the response is open: the gateway is closing.
      if (answer === undefined) {
        res.writeHead(503, { "content-type": "text/plain; charset=utf-8" }).end("the gateway is shutting down");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    } finally {
      res.off("close", onClose);
    }
  }

  /** Charges a request without a valid token to its client address; answers 429 when over. */
  function tooManyUnauthenticated(req: IncomingMessage, res: ServerResponse): boolean {
    const admission = options.unauthenticatedLimiter?.admit(req.socket.remoteAddress ?? "");
    if (!admission) return false;
    if (admission.ok) {
      admission.release();
      return false;
    }
    const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
    res.writeHead(429, { "content-type": "application/json", "retry-after": String(seconds) }).end(
      JSON.stringify({
        error: "rate_limited",
        error_description: `too many unauthenticated requests from this address; retry after ${seconds} s`,
      }),
    );
    return true;
  }

  /** /metrics on this port: single-user mode, or the metrics token. */
  function metricsAllowed(req: IncomingMessage): boolean {
    if (!options.authenticator.required) return true;
    const token = options.metricsToken?.();
    if (!token) return false;
    const given = req.headers.authorization ?? "";
    const expected = `Bearer ${token}`;
    return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
  }

  function scopeMissingFor(principal: Principal, parsed: unknown): Scope | undefined {
    // Malformed JSON: the MCP handler answers it with a JSON-RPC parse error.
    if (parsed === undefined) return missingScope(principal, "lsp:read");
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    for (const message of messages) {
      const missing = missingScope(principal, options.requiredScope(message));
      if (missing) return missing;
    }
    return undefined;
  }

  const timeouts = options.timeouts ?? {};
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs ?? HTTP_TIMEOUT_DEFAULTS.headersMs,
      requestTimeout: timeouts.requestMs ?? HTTP_TIMEOUT_DEFAULTS.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs ?? HTTP_TIMEOUT_DEFAULTS.keepAliveMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs ?? HTTP_TIMEOUT_DEFAULTS.checkIntervalMs,
    },
    (req: IncomingMessage, res: ServerResponse) => {
      const path = pathOf(req.url);
      // Probes and metrics: no Host check (probes address the pod by IP) and nothing secret.
      if (path === HEALTH_PATH) {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("ok");
        return;
      }
      if (path === READY_PATH) {
        const why = options.notReady();
        const degraded = why ? undefined : options.degraded?.();
        res
          .writeHead(why ? 503 : 200, { "content-type": "text/plain; charset=utf-8" })
          .end(why ?? (degraded ? `ready (degraded: ${degraded})` : "ready"));
        return;
      }
      if (path === METRICS_PATH && options.metrics) {
        if (!metricsAllowed(req)) {
          res
            .writeHead(404, { "content-type": "text/plain; charset=utf-8" })
            .end(
              "not found; metrics are served on the metrics listener (LSPMESH_METRICS_LISTEN), or here with the metrics token",
            );
          return;
        }
        options.metrics.text().then(
          ({ contentType, body }) => res.writeHead(200, { "content-type": contentType }).end(body),
          (error: unknown) => {
            options.logger.error("metrics failed", { error: String(error) });
            res.writeHead(500).end();
          },
        );
        return;
      }
      if (
        (path === RESOURCE_METADATA_PATH || path === `${RESOURCE_METADATA_PATH}${MCP_PATH}`) &&
        options.authenticator.required
      ) {
        // RFC 9728 metadata, written here: the SDK's builder needs the authorization server's full
        // RFC 8414 metadata, which a resource server checking JWTs against a JWKS does not have (and an
        // API-key deployment has no authorization server at all).
        const metadata = {
          resource: `${baseUrl(req)}${MCP_PATH}`,
          ...(options.authorizationServers?.length ? { authorization_servers: options.authorizationServers } : {}),
          scopes_supported: [...SCOPES],
          bearer_methods_supported: ["header"],
          resource_name: "lspmesh",
        };
        res
          .writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" })
          .end(JSON.stringify(metadata));
        return;
      }
      if (path === MCP_PATH) {
        handleMcp(req, res).catch((error: unknown) => {
          options.logger.error("mcp request failed", { error: String(error) });
          if (!res.headersSent)
            res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("internal error");
          else res.end();
        });
        return;
      }
      res
        .writeHead(404, { "content-type": "text/plain; charset=utf-8" })
        .end(`not found; MCP is served at ${MCP_PATH}`);
    },
  );
  server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  return server;
}

/** An address as a URL host: IPv6 in brackets, IPv4-mapped IPv6 as plain IPv4. */
function urlHost(address: string): string {
  const plain = address.replace(/^::ffff:/, "");
  return plain.includes(":") ? `[${plain}]` : plain;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** The whole body, or undefined when it is larger than `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      req.resume();
      return undefined;
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function pathOf(url: string | undefined): string {
  try {
    return new URL(url ?? "/", "http://localhost").pathname;
  } catch {
    return "";
  }
}
