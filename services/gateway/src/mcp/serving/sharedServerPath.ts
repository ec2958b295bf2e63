// Tool calls answered by one long-lived MCP server. The SDK's stateless serving of a 2025-era
// request builds, per request, a web Request from the Node one, a server with every tool
// registered, a transport, and a zod parse of the message: most of the gateway's own CPU per call
// (bench/profile.mjs). A single `tools/call` that asked for no progress needs none of that: it is
// handed to one server, connected once to a MultiplexedTransport, and answered as one JSON body
// (which the Streamable HTTP transport allows). The server is the SDK's McpServer with the same
// tools, so validation, dispatch and errors are the SDK's; a call of the plainest shape
// (plainToolCall.ts) goes straight to the same tool handler instead, without the SDK's zod checks.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import {
  type AuthInfo,
  type CallToolResult,
  classifyInboundRequest,
  isJSONRPCRequest,
  isJsonContentType,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { authInfoFor, type Principal } from "../../auth/principal.js";
import type { ToolHandler } from "../defineTool.js";
import { MultiplexedTransport } from "../multiplexedTransport.js";
import { type PlainToolCall, plainToolCall } from "./plainToolCall.js";

export class SharedServerPath {
  private closing: Promise<void> | undefined;
  /** Resolves (with no answer) once close() was called: direct calls in flight then answer 503. */
  private readonly closed: Promise<undefined>;
  private markClosed: () => void = () => {};

  private constructor(
    private readonly server: McpServer,
    private readonly transport: MultiplexedTransport,
    private readonly handlers: ReadonlyMap<string, ToolHandler>,
  ) {
    this.closed = new Promise((resolve) => {
      this.markClosed = () => resolve(undefined);
    });
  }

  /** `handlers`: the handlers of the tools `server` has (by name), for calls dispatched directly. */
  static async start(
    server: McpServer,
    handlers: ReadonlyMap<string, ToolHandler> = new Map(),
  ): Promise<SharedServerPath> {
    const transport = new MultiplexedTransport();
    await server.connect(transport);
    return new SharedServerPath(server, transport, handlers);
  }

  /**
   * True when this POST is a single 2025-era tools/call without a progress token that the SDK's
   * transport would accept (right Accept and Content-Type, a supported protocol version).
   */
  takes(headers: IncomingHttpHeaders, body: unknown): body is JSONRPCRequest {
    if (!isJSONRPCRequest(body) || body.method !== "tools/call" || body.params?._meta?.progressToken !== undefined)
      return false;
    const accept = headers.accept ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return false;
    if (!isJsonContentType(headers["content-type"] ?? null)) return false;
    const version = single(headers["mcp-protocol-version"]);
    if (version !== undefined && !this.transport.supportedProtocolVersions?.includes(version)) return false;
    // The plainest calls are legacy-era by their shape; only the others need the SDK's classification.
    if (plainToolCall(body, version) !== undefined) return true;
    const route = classifyInboundRequest({
      httpMethod: "POST",
      protocolVersionHeader: version,
      mcpMethodHeader: single(headers["mcp-method"]),
      mcpNameHeader: single(headers["mcp-name"]),
      body,
    });
    return route.kind === "legacy";
  }

  /** One JSON body with the server's answer; a response closed first (client gone, cancelled) aborts the call. */
  async serve(call: JSONRPCRequest, principal: Principal, res: ServerResponse): Promise<void> {
    const gone = new AbortController();
    const onClose = () => gone.abort();
    res.once("close", onClose);
    try {
      const answer = await this.answer(call, single(res.req.headers["mcp-protocol-version"]), principal, gone.signal);
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

  /** The answer to `call`: from its tool's handler directly when it is plain, else from the server. */
  private answer(
    call: JSONRPCRequest,
    protocolVersion: string | undefined,
    principal: Principal,
    signal: AbortSignal,
  ): Promise<JSONRPCResponse | undefined> {
    const plain = this.closing ? undefined : plainToolCall(call, protocolVersion);
    const handler = plain && this.handlers.get(plain.name);
    if (!plain || !handler) return this.transport.request(call, authInfoFor(principal), signal);
    if (signal.aborted) return Promise.resolve(undefined);
    return Promise.race([callDirectly(plain, handler, authInfoFor(principal), signal), this.closed]);
  }

  /** Cancels what is in flight and closes the server. Idempotent. */
  close(): Promise<void> {
    this.markClosed();
    this.closing ??= (async () => {
      await this.server.close();
      await this.transport.close();
    })();
    return this.closing;
  }
}

/**
 * What the SDK's McpServer answers a plain call with, without its checks: the handler's result
 * (a tool error when it throws, or when it answers no structured content for a tool that has an
 * output schema — every gateway tool has one), under the call's id.
 */
export async function callDirectly(
  call: PlainToolCall,
  handler: ToolHandler,
  authInfo: AuthInfo,
  signal: AbortSignal,
): Promise<JSONRPCResponse> {
  const ctx = {
    sessionId: undefined,
    mcpReq: { id: call.id, method: "tools/call", _meta: call.meta, signal },
    http: { authInfo },
  } as unknown as ServerContext;
  let result: CallToolResult;
  try {
    result = await handler(call.arguments, ctx);
    if (!result.isError && result.structuredContent === undefined)
      result = toolError(
        `Output validation error: Tool ${call.name} has an output schema but no structured content was provided`,
      );
  } catch (error) {
    result = toolError(error instanceof Error ? error.message : String(error));
  }
  return { result, jsonrpc: "2.0", id: call.id } as JSONRPCResponse;
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
