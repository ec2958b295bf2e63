// Which of the three MCP serving paths answers a request. They give the same answers; they differ
// in what they cost and in how the answer is framed, so each request takes the cheapest path that
// can carry everything it may receive.
import type { IncomingHttpHeaders } from "node:http";
import { classifyInboundRequest, type JSONRPCRequest } from "@modelcontextprotocol/server";
import type { AdmittedMcpRequest } from "./admittedRequest.js";
import type { SharedServerPath } from "./sharedServerPath.js";

export type ServingPath =
  /** One long-lived server answers with one JSON body (sharedServerPath.ts). */
  | { readonly name: "shared-server"; readonly call: JSONRPCRequest }
  /** A fresh server per request answers with one JSON body (freshServerJsonPath.ts). */
  | { readonly name: "fresh-server-json" }
  /** The SDK's per-request serving, SSE for 2025-era requests (sdkHandlerPath.ts). */
  | { readonly name: "sdk-handler" };

export function pickServingPath(request: AdmittedMcpRequest, shared: SharedServerPath): ServingPath {
  const { headers, method } = request.req;
  const body = request.parsed;
  // A plain 2025-era tool call (the bulk of the traffic) needs no per-request server at all.
  if (shared.takes(headers, body)) return { name: "shared-server", call: body };
  // Any other 2025-era request that asked for no progress gets nothing before its result, so
  // one JSON body carries it as well as the SDK's SSE stream would, at less cost to both ends.
  if ((method ?? "GET").toUpperCase() === "POST" && wantsNoProgress(body) && isLegacyEra(headers, body))
    return { name: "fresh-server-json" };
  // Progress needs a stream (SSE); batches, notifications, GET and DELETE, 2026-07-28 requests,
  // bodies that are not JSON and requests the SDK refuses get the SDK's own answer.
  return { name: "sdk-handler" };
}

/** A JSON-RPC request (it has an id) that did not ask for progress; batches and notifications are not. */
function wantsNoProgress(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const message = body as { id?: unknown; method?: unknown; params?: { _meta?: { progressToken?: unknown } } };
  if (message.id === undefined || typeof message.method !== "string") return false;
  return message.params?._meta?.progressToken === undefined;
}

/**
 * The SDK's era decision for a POSTed JSON body (what isLegacyRequest answers), made on the Node
 * headers: repeated headers joined as a web Headers object joins them.
 */
function isLegacyEra(headers: IncomingHttpHeaders, body: unknown): boolean {
  const route = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: joined(headers["mcp-protocol-version"]),
    mcpMethodHeader: joined(headers["mcp-method"]),
    mcpNameHeader: joined(headers["mcp-name"]),
    body,
  });
  return route.kind === "legacy";
}

function joined(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}
