// The paths the gateway answers, and the shape of the function that answers one.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ADMIN_PATH } from "../admin/adminRequest.js";

export const MCP_PATH = "/mcp";
export const HEALTH_PATH = "/healthz";
export const READY_PATH = "/readyz";
export const METRICS_PATH = "/metrics";
/** RFC 9728: metadata of the resource https://host/mcp lives at /.well-known/oauth-protected-resource/mcp. */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

export { ADMIN_PATH };

/** /admin/v1 and everything under it: the admin API's one route parses the rest. */
export function isAdminPath(path: string): boolean {
  return path === ADMIN_PATH || path.startsWith(`${ADMIN_PATH}/`);
}

/** Answers one request; whatever it awaits, it handles its own failures. */
export type Route = (req: IncomingMessage, res: ServerResponse) => void;

export const notFound: Route = (_req, res) => {
  res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end(`not found; MCP is served at ${MCP_PATH}`);
};

/** The path of a request target; "" (no route) when it is not a URL. */
export function pathOf(url: string | undefined): string {
  try {
    return new URL(url ?? "/", "http://localhost").pathname;
  } catch {
    return "";
  }
}
