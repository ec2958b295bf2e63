// Starts the gateway: MCP over HTTP in front of the runner(s) a RunnerRouter picks.
import type { AddressInfo } from "node:net";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { allowlistsFor } from "./http/allowlists.js";
import { createHttpServer, MCP_PATH } from "./http/httpServer.js";
import { type Logger, silentLogger } from "./logger.js";
import { createGatewayMcpServer } from "./mcp/createMcpServer.js";
import type { ToolDeps } from "./mcp/toolCall.js";
import type { RunnerRouter } from "./runnerRouting.js";
import type { WorkspaceResolver } from "./workspaces.js";

/** Deadline of one runner call when not configured, in ms. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

export interface GatewayOptions {
  /** Address to bind, e.g. 127.0.0.1 (loopback: only localhost Host/Origin headers are accepted). */
  host: string;
  /** TCP port; 0 picks a free one (see RunningGateway.port). */
  port: number;
  /** Picks the runner for each workspace. The gateway owns it once started and closes it in close(). */
  router: RunnerRouter;
  workspaces: WorkspaceResolver;
  logger?: Logger;
  /** Deadline of one runner call in ms (default 30 000); diagnostics add their wait_ms. */
  callTimeoutMs?: number;
  /** Host header hostnames accepted when bound to a non-loopback address; unset = not checked. */
  allowedHosts?: string[];
  /** Origin hostnames accepted when bound to a non-loopback address; unset = browsers refused. */
  allowedOrigins?: string[];
}

export interface RunningGateway {
  /** The MCP endpoint, e.g. http://127.0.0.1:7420/mcp. */
  readonly url: string;
  /** The bound port (the real one when 0 was asked for). */
  readonly port: number;
  /** Stops serving: closes the HTTP server and its connections, the MCP handler and the router. Idempotent. */
  close(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const logger = options.logger ?? silentLogger;
  const deps: ToolDeps = {
    router: options.router,
    workspaces: options.workspaces,
    logger,
    callTimeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
  };
  // legacy: 'stateless' (the default) serves 2025-era clients next to 2026-07-28 ones.
  const mcp = createMcpHandler(() => createGatewayMcpServer(deps), {
    onerror: (error) => logger.warn("mcp request rejected", { error: error.message }),
  });
  const allowlists = allowlistsFor(options.host, { hosts: options.allowedHosts, origins: options.allowedOrigins });
  if (!allowlists.hosts) logger.warn("Host header not checked: no allowed hosts configured for a non-loopback bind");
  const server = createHttpServer({ mcp, allowlists, logger });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await mcp.close();
    throw error;
  }

  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const shutdown = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await mcp.close();
    server.closeAllConnections();
    await closed;
    options.router.close();
  };
  return {
    url: `http://${connectableHost(options.host)}:${port}${MCP_PATH}`,
    port,
    close: () => {
      closing ??= shutdown();
      return closing;
    },
  };
}

/** A host to put in a URL: wildcard binds become loopback, IPv6 literals get brackets. */
function connectableHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
