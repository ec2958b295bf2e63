// Tool calls answered by one long-lived MCP server. The SDK's stateless serving of a 2025-era
// request builds, per request, a web Request from the Node one, a server with every tool
// registered, a transport, and a zod parse of the message: most of the gateway's own CPU per call
// (bench/profile.mjs). A single `tools/call` that asked for no progress needs none of that: it is
// handed to one server, connected once to a MultiplexedTransport, and answered as one JSON body
// (which the Streamable HTTP transport allows). The server is the SDK's McpServer with the same
// tools, so validation, dispatch and errors are the SDK's.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import {
  classifyInboundRequest,
  isJSONRPCRequest,
  isJsonContentType,
  type JSONRPCRequest,
  type McpServer,
} from "@modelcontextprotocol/server";
import { authInfoFor, type Principal } from "../../auth/principal.js";
import { MultiplexedTransport } from "../multiplexedTransport.js";

export class SharedServerPath {
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly server: McpServer,
    private readonly transport: MultiplexedTransport,
  ) {}

  static async start(server: McpServer): Promise<SharedServerPath> {
    const transport = new MultiplexedTransport();
    await server.connect(transport);
    return new SharedServerPath(server, transport);
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
      const answer = await this.transport.request(call, authInfoFor(principal), gone.signal);
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

  /** Cancels what is in flight and closes the server. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.server.close();
      await this.transport.close();
    })();
    return this.closing;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
