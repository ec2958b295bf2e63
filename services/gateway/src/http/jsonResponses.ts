// Plain JSON answers for 2025-era MCP requests that cannot receive progress. The SDK's stateless
// serving of those requests always answers with an SSE stream (event framing, a stream the client
// must parse, the server kept until it ends); a request that asked for no progress (no
// params._meta.progressToken) gets nothing before its result from this gateway, so it is answered
// as one `application/json` body, which the Streamable HTTP transport allows. Requests that asked
// for progress, batches, notifications and 2026-era requests go to the SDK's handler unchanged
// (that one already answers 2026-era requests with JSON unless something is sent before the result).
import {
  isLegacyRequest,
  type McpHandlerRequestOptions,
  type McpHttpHandler,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

type FetchHandler = Pick<McpHttpHandler, "fetch">;

/** A JSON-RPC request (it has an id) that did not ask for progress; batches and notifications are not. */
function wantsNoProgress(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const message = body as { id?: unknown; method?: unknown; params?: { _meta?: { progressToken?: unknown } } };
  if (message.id === undefined || typeof message.method !== "string") return false;
  return message.params?._meta?.progressToken === undefined;
}

export function withJsonResponses(sdk: FetchHandler, factory: McpServerFactory): FetchHandler {
  return {
    fetch: async (request: Request, options: McpHandlerRequestOptions = {}) => {
      if (request.method.toUpperCase() !== "POST") return sdk.fetch(request, options);
      let body = options.parsedBody;
      if (body === undefined) {
        const text = await request.text();
        try {
          body = text.length === 0 ? undefined : JSON.parse(text);
        } catch {
          body = undefined;
        }
        if (body === undefined) {
          // Not JSON: the SDK gives the error answer, from the same bytes.
          return sdk.fetch(
            new Request(request.url, { method: "POST", headers: request.headers, body: text, signal: request.signal }),
            options,
          );
        }
      }
      const parsed = { ...options, parsedBody: body };
      if (!wantsNoProgress(body) || !(await isLegacyRequest(request, body))) return sdk.fetch(request, parsed);
      return answerAsJson(request, parsed, factory);
    },
  };
}

/** One request served by a fresh server over a stateless transport that answers with JSON. */
async function answerAsJson(
  request: Request,
  options: McpHandlerRequestOptions & { parsedBody: unknown },
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
