// The two serving paths built on web-standard fetch handlers reach them through the SDK's Node
// adapter, which turns the Node request into a web Request and writes the Response back (with
// back-pressure, and an aborted request signal once the response closes).
import type { Logger } from "@lspmesh/service-kit";
import { type FetchLikeMcpHandler, type NodeIncomingMessageLike, toNodeHandler } from "@modelcontextprotocol/node";
import { authInfoFor } from "../../auth/principal.js";
import { type AdmittedMcpRequest, MAX_BODY_BYTES, type ServeOnPath } from "./admittedRequest.js";

export function serveThroughWebHandler(handler: FetchLikeMcpHandler, logger: Logger): ServeOnPath {
  const serveNode = toNodeHandler(handler, {
    onerror: (error) => logger.error("mcp handler failed", { error: error.message }),
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  // The parsed body is handed over, so the handler does not parse it again.
  return (request, res) => serveNode(replayed(request), res, request.parsed);
}

/**
 * The request with its body, read by the front door, replayed (the adapter reads it only when
 * it was not JSON), and the verified caller as `auth` (never the token).
 */
function replayed(request: AdmittedMcpRequest): NodeIncomingMessageLike {
  const { req, body } = request;
  return {
    method: req.method,
    url: req.url,
    headers: req.headers,
    auth: authInfoFor(request.principal),
    async *[Symbol.asyncIterator]() {
      if (body && body.length > 0) yield body;
    },
  };
}
