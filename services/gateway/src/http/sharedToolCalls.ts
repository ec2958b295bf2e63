// Tool calls answered by one long-lived MCP server. The SDK's stateless serving of a 2025-era
// request builds, per request, a web Request from the Node one, a server with every tool
// registered, a transport, and a zod parse of the message: most of the gateway's own CPU per call
// (bench/profile.mjs). A single `tools/call` that asked for no progress needs none of that: it is
// handed to one server, connected once to a MultiplexedTransport, and answered as one JSON body
// (which the Streamable HTTP transport allows). The server is the SDK's McpServer with the same
// tools, so validation, dispatch and errors are the SDK's. Everything else (initialize, lists,
// batches, notifications, progress, 2026-era requests, and any request the SDK's transport would
// refuse: wrong Accept or Content-Type, an unsupported protocol version) goes to the SDK's
// per-request serving, unchanged.
import type { IncomingHttpHeaders } from "node:http";
import {
  type AuthInfo,
  classifyInboundRequest,
  isJSONRPCRequest,
  isJsonContentType,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type McpServer,
} from "@modelcontextprotocol/server";
import { MultiplexedTransport } from "../mcp/multiplexedTransport.js";

export class SharedToolCalls {
  private constructor(
    private readonly server: McpServer,
    private readonly transport: MultiplexedTransport,
  ) {}

  static async start(server: McpServer): Promise<SharedToolCalls> {
    const transport = new MultiplexedTransport();
    await server.connect(transport);
    return new SharedToolCalls(server, transport);
  }

  /** True when this POST is a single 2025-era tools/call without a progress token that the SDK would accept. */
  takes(headers: IncomingHttpHeaders, body: unknown): body is JSONRPCRequest {
    if (!isJSONRPCRequest(body) || body.method !== "tools/call" || body.params?._meta?.progressToken !== undefined)
      return false;
    const accept = headers.accept ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return false;
    if (!isJsonContentType(headers["content-type"] ?? null)) return false;
    const version = single(headers["mcp-protocol-version"]);
    if (version !== undefined && !this.transport.supportedProtocolVersions?.includes(version)) return false;
    const route = classifyInboundRequest({
      httpMethod: "POST",
      protocolVersionHeader: version,
      mcpMethodHeader: single(headers["mcp-method"]),
      mcpNameHeader: single(headers["mcp-name"]),
      body,
    });
    return route.kind === "legacy";
  }

  /** The server's JSON-RPC response, or undefined when `signal` aborted first (the call is cancelled). */
  answer(request: JSONRPCRequest, authInfo: AuthInfo, signal: AbortSignal): Promise<JSONRPCResponse | undefined> {
    return this.transport.request(request, authInfo, signal);
  }

  /** Cancels what is in flight and closes the server. Idempotent. */
  async close(): Promise<void> {
    await this.server.close();
    await this.transport.close();
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
