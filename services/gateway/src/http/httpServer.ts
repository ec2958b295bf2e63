// The gateway's HTTP surface: MCP (Streamable HTTP) at /mcp behind Host/Origin checks and bearer
// authentication; RFC 9728 protected-resource metadata; /healthz, /readyz and /metrics; 404 elsewhere.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "@lspmesh/service-kit";
import { hostHeaderValidation, originValidation, toNodeHandler } from "@modelcontextprotocol/node";
import type { McpHttpHandler } from "@modelcontextprotocol/server";
import type { Authenticator } from "../auth/authenticator.js";
import { authInfoFor, hasScope, type Principal, SCOPES, type Scope } from "../auth/principal.js";
import type { TenantLimiter } from "../limits/tenantLimiter.js";
import type { GatewayMetrics } from "../ops/metrics.js";
import type { Allowlists } from "./allowlists.js";
import { InFlightRequests } from "./inFlightRequests.js";

export const MCP_PATH = "/mcp";
export const HEALTH_PATH = "/healthz";
export const READY_PATH = "/readyz";
export const METRICS_PATH = "/metrics";
/** RFC 9728: metadata of the resource https://host/mcp lives at /.well-known/oauth-protected-resource/mcp. */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** Largest MCP request body accepted, in bytes (the MCP SDK's default). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpServerOptions {
  mcp: McpHttpHandler;
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
  metrics?: GatewayMetrics | undefined;
  /**
   * Per-tenant ceiling on HTTP requests to /mcp; over it: 429 with Retry-After. Set well above the
   * tool-call limits (which answer RATE_LIMITED tool errors a model can act on), it only stops
   * floods that never reach a tool: initialize, tools/list, pings.
   */
  requestLimiter?: TenantLimiter | undefined;
}

export function createHttpServer(options: HttpServerOptions): Server {
  const serveMcp = toNodeHandler(options.mcp, {
    onerror: (error) => options.logger.error("mcp handler failed", { error: error.message }),
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  const checkHost = options.allowlists.hosts ? hostHeaderValidation(options.allowlists.hosts) : () => true;
  const checkOrigin = originValidation(options.allowlists.origins);
  const inFlight = new InFlightRequests();

  const baseUrl = (req: IncomingMessage) =>
    (options.publicUrl ?? `http://${req.headers.host ?? "localhost"}`).replace(/\/+$/, "");
  const metadataUrl = (req: IncomingMessage) => `${baseUrl(req)}${RESOURCE_METADATA_PATH}${MCP_PATH}`;

  const challenge = (req: IncomingMessage, params: Record<string, string>) =>
    [
      `Bearer resource_metadata="${metadataUrl(req)}"`,
      ...Object.entries(params).map(([k, v]) => `${k}="${v.replaceAll('"', "'")}"`),
    ].join(", ");

  const refuse = (res: ServerResponse, status: 401 | 403, header: string, error: string, description: string) => {
    res
      .writeHead(status, {
        "content-type": "application/json",
        "www-authenticate": header,
        "cache-control": "no-store",
      })
      .end(JSON.stringify({ error, error_description: description }));
  };

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Each guard answers 403 itself when it refuses.
    if (!checkHost(req, res) || !checkOrigin(req, res)) return;
    const outcome = await options.authenticator.authenticate(req.headers.authorization);
    if (!outcome.ok) {
      const params: Record<string, string> = {};
      if (outcome.error) params.error = outcome.error;
      params.error_description = outcome.description;
      refuse(res, 401, challenge(req, params), outcome.error ?? "unauthorized", outcome.description);
      return;
    }
    const principal = outcome.principal;
    const admission = options.requestLimiter?.admit(principal.tenant);
    if (admission && !admission.ok) {
      const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
      options.metrics?.rateLimited.inc({ tenant: principal.tenant, reason: "http" });
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
      const missing = missingScope(principal, parsed);
      if (missing) {
        const scope = missing === "lsp:write" ? "lsp:read lsp:write" : missing;
        const description = `this token lacks the ${missing} scope`;
        refuse(
          res,
          403,
          challenge(req, { error: "insufficient_scope", scope, error_description: description }),
          "insufficient_scope",
          description,
        );
        return;
      }
    } else if (!hasScope(principal, "lsp:read")) {
      const description = "this token lacks the lsp:read scope";
      refuse(
        res,
        403,
        challenge(req, { error: "insufficient_scope", scope: "lsp:read", error_description: description }),
        "insufficient_scope",
        description,
      );
      return;
    }
    if (parsed !== undefined) {
      const origin = { tenant: principal.tenant, subject: principal.subject, address: req.socket.remoteAddress ?? "" };
      if (inFlight.cancel(origin, parsed) > 0) options.logger.debug("request cancelled by the client", origin);
      inFlight.track(origin, parsed, res);
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
    await serveMcp(replay, res);
  }

  function missingScope(principal: Principal, parsed: unknown): Scope | undefined {
    // Malformed JSON: the MCP handler answers it with a JSON-RPC parse error.
    if (parsed === undefined) return hasScope(principal, "lsp:read") ? undefined : "lsp:read";
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    for (const message of messages) {
      const needed = options.requiredScope(message);
      if (!hasScope(principal, needed)) return needed;
    }
    return undefined;
  }

  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req.url);
    // Probes and metrics: no Host check (probes address the pod by IP) and nothing secret.
    if (path === HEALTH_PATH) {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("ok");
      return;
    }
    if (path === READY_PATH) {
      const why = options.notReady();
      res.writeHead(why ? 503 : 200, { "content-type": "text/plain; charset=utf-8" }).end(why ?? "ready");
      return;
    }
    if (path === METRICS_PATH && options.metrics) {
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
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("internal error");
        else res.end();
      });
      return;
    }
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end(`not found; MCP is served at ${MCP_PATH}`);
  });
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
