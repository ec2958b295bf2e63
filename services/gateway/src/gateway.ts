// Starts the gateway: MCP over HTTP in front of the runners a RunnerRouter picks.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { SymbolIndexReader } from "@lspmesh/events";
import { DEFAULT_CALL_TIMEOUT_MS } from "@lspmesh/proto";
import { type Logger, serveMetrics, silentLogger } from "@lspmesh/service-kit";
import type { AdminService } from "./admin/adminService.js";
import type { GatewayAnswerCache } from "./answers/gatewayAnswerCache.js";
import type { Authenticator } from "./auth/authenticator.js";
import { allowlistsFor } from "./http/allowlists.js";
import { createHttpServer, type HttpServerOptions, type HttpTimeouts, MCP_PATH } from "./http/httpServer.js";
import { TenantLimiter } from "./limits/tenantLimiter.js";
import { McpServing } from "./mcp/serving/mcpServing.js";
import type { ToolDeps, WorkspaceUsageSink } from "./mcp/toolCall.js";
import { GatewayMetrics } from "./ops/metrics.js";
import type { RunnerRouter } from "./routing/runnerRouter.js";
import { SymbolIndexCache } from "./symbols/symbolIndexCache.js";
import type { WorkspaceResolver } from "./workspaces.js";

export interface GatewayOptions {
  /** Address to bind, e.g. 127.0.0.1 (loopback: only localhost Host/Origin headers are accepted). */
  host: string;
  /** TCP port; 0 picks a free one (see RunningGateway.port). */
  port: number;
  /** Picks the runner for each workspace. The gateway owns it once started and closes it in close(). */
  router: RunnerRouter;
  workspaces: WorkspaceResolver;
  /** Who is calling: bearer tokens, or no tokens in loopback single-machine mode. */
  authenticator: Authenticator;
  /** Per-tenant call limits; absent = none. */
  limiter?: TenantLimiter;
  logger?: Logger;
  /** Audit lines of write calls (default: logger). */
  auditLogger?: Logger;
  /** Deadline of one runner call in ms (default 30 000); diagnostics add their wait_ms. */
  callTimeoutMs?: number;
  /** Host header hostnames accepted when bound to a non-loopback address; unset = not checked. */
  allowedHosts?: string[];
  /**
   * Browser origins accepted: hostnames when bound to a non-loopback address, exact origins
   * ("http://localhost:5173") on loopback; unset = browsers refused.
   */
  allowedOrigins?: string[];
  /** Public base URL for the protected-resource metadata (default: from the Host header). */
  publicUrl?: string;
  /** Token issuers to advertise in the protected-resource metadata. */
  authorizationServers?: string[];
  /** Process metrics (CPU, memory, event loop) on /metrics too (default false). */
  processMetrics?: boolean;
  progressIntervalMs?: number;
  /** Serve no tool that can write files (default false). */
  readOnly?: boolean;
  /** host:port of a separate listener for GET /metrics (port 0: a free one); unset = none. */
  metricsListen?: string;
  /** The token /metrics on the main port asks for in token mode (read at each request); unset = 404 there. */
  metricsToken?: () => string | undefined;
  /** Tenant ids as metric labels (default true); false writes "-". */
  metricsTenantLabels?: boolean;
  /** Most open HTTP connections (default 1024). */
  maxConnections?: number;
  /**
   * Cut-offs for slow and idle HTTP clients, in ms (defaults: headers 10 000, whole request
   * 30 000, idle keep-alive 5 000, checked every 1 000). Tests shorten them.
   */
  httpTimeouts?: HttpTimeouts;
  /** Requests without a valid token per second and client address (default 10, bursts alike). */
  unauthenticatedPerSecond?: number;
  /**
   * Where runners store symbol indexes (search_symbols answers from them); absent = searches ask
   * live servers. The gateway stops following it in close(); its owner closes its connection.
   */
  symbolIndex?: SymbolIndexReader;
  /**
   * The admin API under /admin/v1 (tenancy from the control plane only); absent = 404 there. The
   * gateway owns it once started and closes it in close().
   */
  admin?: AdminService;
  /** Told the workspace of every tool call (idle TTLs); absent = nothing recorded. Its owner closes it. */
  workspaceUsage?: WorkspaceUsageSink;
  /**
   * Read answers remembered at the gateway (the router's clients answer through it); absent = every
   * call reaches a runner. Told of this gateway's edits. Its owner closes what it listens to.
   */
  answerCache?: GatewayAnswerCache;
}

export interface RunningGateway {
  /** The MCP endpoint, e.g. http://127.0.0.1:7420/mcp. */
  readonly url: string;
  /** The bound port (the real one when 0 was asked for). */
  readonly port: number;
  readonly metrics: GatewayMetrics;
  /** host:port of the metrics listener, when metricsListen was given. */
  readonly metricsAddress: string | undefined;
  /** Stops serving: closes the HTTP server and its connections, the MCP handler, the admin API and the router. Idempotent. */
  close(): Promise<void>;
  /** close(), for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

export { requiredScope } from "./mcp/serving/requiredScope.js";

/** Requests without a valid token a client address may send per second (bursts alike). */
const DEFAULT_UNAUTHENTICATED_PER_SECOND = 10;
/** Client addresses whose unauthenticated requests are counted at once, at most. */
const MAX_TRACKED_ADDRESSES = 10_000;

/** HTTP requests a tenant may send per tool call allowed (initialize, lists, pings and the calls). */
export const HTTP_REQUESTS_PER_CALL = 10;

/** The per-tenant HTTP ceiling derived from the tool-call limits (see HttpServerOptions.requestLimiter). */
function httpRequestLimiter(calls: TenantLimiter): TenantLimiter {
  return new TenantLimiter((tenant) => {
    const limits = calls.limits(tenant);
    return {
      callsPerSecond: limits.callsPerSecond * HTTP_REQUESTS_PER_CALL,
      // Open streams and long tool calls: bounded by the tool-call limits, not here.
      concurrentCalls: Number.MAX_SAFE_INTEGER,
    };
  });
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const logger = options.logger ?? silentLogger;
  const answerCache = options.answerCache;
  const metrics = new GatewayMetrics(() => options.router, {
    processMetrics: options.processMetrics,
    tenantLabels: options.metricsTenantLabels,
    ...(answerCache ? { answerCache: () => ({ ...answerCache.counts }) } : {}),
  });
  const symbolIndex = options.symbolIndex
    ? new SymbolIndexCache(options.symbolIndex, { metrics: metrics.symbolIndex })
    : undefined;
  const deps = gatewayToolDeps(options, logger, metrics, symbolIndex);
  const mcp = await McpServing.start(deps);
  const closeServing = async () => {
    await mcp.close();
    await options.admin?.close();
  };
  const server = gatewayHttpServer(options, logger, metrics, mcp);
  await listen(server, options.port, options.host).catch(async (error: unknown) => {
    await closeServing();
    throw error;
  });

  const port = (server.address() as AddressInfo).port;
  const metricsServer = options.metricsListen
    ? await serveMetrics(options.metricsListen, () => metrics.text()).catch(async (error: unknown) => {
        server.close();
        await closeServing();
        throw error;
      })
    : undefined;
  let closing: Promise<void> | undefined;
  const shutdown = async () => {
    await metricsServer?.close();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await closeServing();
    server.closeAllConnections();
    await closed;
    symbolIndex?.close();
    await options.router.close();
  };
  const close = () => {
    closing ??= shutdown();
    return closing;
  };
  return {
    url: `http://${connectableHost(options.host)}:${port}${MCP_PATH}`,
    port,
    metrics,
    metricsAddress: metricsServer?.address,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** What every tool call of this gateway shares. */
function gatewayToolDeps(
  options: GatewayOptions,
  logger: Logger,
  metrics: GatewayMetrics,
  symbolIndex: SymbolIndexCache | undefined,
): ToolDeps {
  return {
    router: options.router,
    workspaces: options.workspaces,
    logger,
    auditLogger: options.auditLogger,
    callTimeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    limiter: options.limiter,
    metrics,
    progressIntervalMs: options.progressIntervalMs,
    readOnly: options.readOnly,
    symbolIndex,
    usage: options.workspaceUsage,
    answerCache: options.answerCache,
  };
}

/** The HTTP server in front of the MCP handlers: Host/Origin allowlists, authentication, limits, readiness. */
function gatewayHttpServer(
  options: GatewayOptions,
  logger: Logger,
  metrics: GatewayMetrics,
  mcp: HttpServerOptions["mcp"],
): Server {
  const allowlists = allowlistsFor(options.host, { hosts: options.allowedHosts, origins: options.allowedOrigins });
  if (!allowlists.hosts) logger.warn("Host header not checked: no allowed hosts configured for a non-loopback bind");
  return createHttpServer({
    mcp,
    admin: options.admin,
    allowlists,
    logger,
    authenticator: options.authenticator,
    publicUrl: options.publicUrl,
    authorizationServers: options.authorizationServers,
    metrics,
    requestLimiter: options.limiter ? httpRequestLimiter(options.limiter) : undefined,
    unauthenticatedLimiter: options.authenticator.required
      ? new TenantLimiter(
          () => ({ callsPerSecond: options.unauthenticatedPerSecond ?? DEFAULT_UNAUTHENTICATED_PER_SECOND }),
          undefined,
          MAX_TRACKED_ADDRESSES,
        )
      : undefined,
    metricsToken: options.metricsToken,
    maxConnections: options.maxConnections,
    timeouts: options.httpTimeouts,
    notReady: () => (options.router.ready() ? undefined : "no live runner yet"),
    degraded: () => options.router.degraded(),
  });
}

/** Resolves once the server listens; rejects with the bind error (EADDRINUSE, EACCES). */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** A host to put in a URL: wildcard binds become loopback, IPv6 literals get brackets. */
function connectableHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
