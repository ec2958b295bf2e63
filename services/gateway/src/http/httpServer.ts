// The gateway's HTTP surface: MCP (Streamable HTTP) at /mcp behind the front door's guards (Host
// and Origin allowlists, bearer authentication, request limits); the admin API under /admin/v1;
// RFC 9728 protected-resource metadata; /healthz, /readyz and /metrics; 404 elsewhere.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "@lspmesh/service-kit";
import type { AdminService } from "../admin/adminService.js";
import type { Authenticator } from "../auth/authenticator.js";
import type { TenantLimiter } from "../limits/tenantLimiter.js";
import { type AdmittedMcpRequest, type InsufficientScope, MAX_BODY_BYTES } from "../mcp/serving/admittedRequest.js";
import type { GatewayMetrics } from "../ops/metrics.js";
import { adminRoute } from "./adminRoute.js";
import type { Allowlists } from "./allowlists.js";
import {
  admit,
  allowedHost,
  allowedOrigin,
  authenticatedCaller,
  bodyWithinLimit,
  type McpGuard,
  withinTenantRequestRate,
} from "./mcpGuards.js";
import { healthRoute, metricsRoute, readinessRoute } from "./probes.js";
import { type ProtectedResource, protectedResource, resourceMetadataRoute } from "./protectedResource.js";
import { writeRefusal } from "./refusals.js";
import {
  HEALTH_PATH,
  isAdminPath,
  MCP_PATH,
  METRICS_PATH,
  notFound,
  pathOf,
  READY_PATH,
  RESOURCE_METADATA_PATH,
  type Route,
} from "./routes.js";

export { HEALTH_PATH, MCP_PATH, METRICS_PATH, READY_PATH, RESOURCE_METADATA_PATH } from "./routes.js";

/** MCP serving behind the guards: serves an admitted request, or says which scope its caller lacks. */
export interface McpEndpoint {
  serve(request: AdmittedMcpRequest, res: ServerResponse): Promise<InsufficientScope | undefined>;
}

export interface HttpServerOptions {
  /** Serves POST/GET/DELETE /mcp once the guards admitted the request. */
  mcp: McpEndpoint;
  /** The admin API (/admin/v1), when tenancy comes from the control plane; absent: 404 naming the fix. */
  admin?: AdminService | undefined;
  allowlists: Allowlists;
  logger: Logger;
  authenticator: Authenticator;
  /** Public base URL (https://lspmesh.example.com) for the resource metadata; default: the address a connection reached. */
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
  const resource = protectedResource(options.publicUrl);
  const routes = new Map<string, Route>([
    [HEALTH_PATH, healthRoute],
    [READY_PATH, readinessRoute(options.notReady, options.degraded)],
    [MCP_PATH, mcpRoute(options, resource)],
  ]);
  if (options.metrics) {
    const access = { tokensRequired: options.authenticator.required, metricsToken: options.metricsToken };
    routes.set(METRICS_PATH, metricsRoute(options.metrics, access, options.logger));
  }
  if (options.authenticator.required) {
    const metadata = resourceMetadataRoute(resource, options.authorizationServers);
    routes.set(RESOURCE_METADATA_PATH, metadata);
    routes.set(`${RESOURCE_METADATA_PATH}${MCP_PATH}`, metadata);
  }
  const admin = adminRoute({
    admin: options.admin,
    allowlists: options.allowlists,
    authenticator: options.authenticator,
    unauthenticatedLimiter: options.unauthenticatedLimiter,
    resource,
    logger: options.logger,
  });
  const timeouts = options.timeouts ?? {};
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs ?? HTTP_TIMEOUT_DEFAULTS.headersMs,
      requestTimeout: timeouts.requestMs ?? HTTP_TIMEOUT_DEFAULTS.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs ?? HTTP_TIMEOUT_DEFAULTS.keepAliveMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs ?? HTTP_TIMEOUT_DEFAULTS.checkIntervalMs,
    },
    (req, res) => {
      const path = pathOf(req.url);
      (routes.get(path) ?? (isAdminPath(path) ? admin : notFound))(req, res);
    },
  );
  server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  return server;
}

/** /mcp: the guards in the order they run, then MCP serving; the first refusal is the answer. */
function mcpRoute(options: HttpServerOptions, resource: ProtectedResource): Route {
  const guards: readonly McpGuard[] = [
    allowedHost(options.allowlists),
    allowedOrigin(options.allowlists),
    authenticatedCaller(options.authenticator, options.unauthenticatedLimiter),
    withinTenantRequestRate(options.requestLimiter, options.metrics),
    bodyWithinLimit(MAX_BODY_BYTES),
  ];
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const admitted = await admit(guards, req, res);
    // MCP serving, which knows the tools, decides the scope the request needs before serving it.
    const refusal = admitted.ok ? await options.mcp.serve(admitted.request, res) : admitted.refusal;
    if (refusal) await writeRefusal(res, refusal, () => resource.metadataUrl(req));
  }
  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger.error("mcp request failed", { error: String(error) });
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("internal error");
      else res.end();
    });
  };
}
