// The gateway's HTTP surface: MCP (Streamable HTTP) at /mcp behind Host and Origin checks,
// a liveness probe at /healthz, 404 elsewhere.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { hostHeaderValidation, originValidation, toNodeHandler } from "@modelcontextprotocol/node";
import type { McpHttpHandler } from "@modelcontextprotocol/server";
import type { Logger } from "../logger.js";
import type { Allowlists } from "./allowlists.js";

export const MCP_PATH = "/mcp";
export const HEALTH_PATH = "/healthz";

export interface HttpServerOptions {
  mcp: McpHttpHandler;
  allowlists: Allowlists;
  logger: Logger;
}

export function createHttpServer(options: HttpServerOptions): Server {
  const serveMcp = toNodeHandler(options.mcp, {
    onerror: (error) => options.logger.error("mcp handler failed", { error: error.message }),
  });
  const checkHost = options.allowlists.hosts ? hostHeaderValidation(options.allowlists.hosts) : () => true;
  const checkOrigin = originValidation(options.allowlists.origins);

  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req.url);
    if (path === HEALTH_PATH) {
      // No Host check: probes address the pod by IP, and the answer reveals nothing.
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("ok");
      return;
    }
    if (path === MCP_PATH) {
      // Each guard answers 403 itself when it refuses.
      if (!checkHost(req, res) || !checkOrigin(req, res)) return;
      void serveMcp(req, res);
      return;
    }
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end(`not found; MCP is served at ${MCP_PATH}`);
  });
}

function pathOf(url: string | undefined): string {
  try {
    return new URL(url ?? "/", "http://localhost").pathname;
  } catch {
    return "";
  }
}
