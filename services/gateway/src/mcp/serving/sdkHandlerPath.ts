// The SDK's own per-request serving (createMcpHandler): a fresh server with every tool for each
// request. 2025-era requests are answered over an SSE stream (so progress notifications can go
// out before the result); 2026-07-28 requests with one JSON body unless something is sent before
// the result. It also gives every protocol error answer (wrong Accept or Content-Type, a body
// that is not JSON-RPC, an unsupported protocol version).
import type { Logger } from "@lspmesh/service-kit";
import { createMcpHandler, type McpServerFactory } from "@modelcontextprotocol/server";
import type { ServeOnPath } from "./admittedRequest.js";
import { serveThroughWebHandler } from "./webHandlerAdapter.js";

export interface SdkHandlerPath {
  readonly serve: ServeOnPath;
  /** Tears down the requests in flight. Idempotent. */
  close(): Promise<void>;
}

export function sdkHandlerPath(factory: McpServerFactory, logger: Logger): SdkHandlerPath {
  // legacy: 'stateless' (the default) serves 2025-era clients next to 2026-07-28 ones.
  const handler = createMcpHandler(factory, {
    onerror: (error) => logger.warn("mcp request rejected", { error: error.message }),
  });
  return { serve: serveThroughWebHandler(handler, logger), close: () => handler.close() };
}
