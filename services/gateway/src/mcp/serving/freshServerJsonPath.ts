// Plain JSON answers for 2025-era MCP requests that asked for no progress. The SDK's stateless
// serving of those requests always answers with an SSE stream (event framing, a stream the client
// must parse, the server kept until it ends); a request without params._meta.progressToken gets
// nothing before its result from this gateway, so it is answered as one `application/json` body,
// which the Streamable HTTP transport allows. The server is a fresh one per request, as the SDK's.
import type { Logger } from "@lspmesh/service-kit";
import {
  type McpHandlerRequestOptions,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { ServeOnPath } from "./admittedRequest.js";
import { serveThroughWebHandler } from "./webHandlerAdapter.js";

export function freshServerJsonPath(factory: McpServerFactory, logger: Logger): ServeOnPath {
  return serveThroughWebHandler({ fetch: (request, options = {}) => answerAsJson(request, options, factory) }, logger);
}

/** One request served by a fresh server over a stateless transport that answers with JSON. */
async function answerAsJson(
  request: Request,
  options: McpHandlerRequestOptions,
  factory: McpServerFactory,
): Promise<Response> {
  const server = await factory({
    era: "legacy",
    ...(options.authInfo !== undefined ? { authInfo: options.authInfo } : {}),
    requestInfo: request,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  const teardown = () => {
    transport.close().catch(() => {});
    server.close().catch(() => {});
  };
  // The caller went away: closing the server aborts the tool call (and its runner call).
  request.signal?.addEventListener("abort", teardown, { once: true });
  let answered = false;
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request, options);
    answered = true;
    return response;
  } finally {
    request.signal?.removeEventListener("abort", teardown);
    // Once handleRequest resolved, the JSON body is complete and this server and transport hold
    // nothing (no request in flight, no timer, no socket): they are left to the garbage collector.
    // Closing them would cost more than the rest of the MCP handling (close() builds an Error with
    // a stack trace for requests that no longer exist). Only a failed request is torn down.
    if (!answered) teardown();
  }
}
