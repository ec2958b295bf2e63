// This gateway as an OAuth protected resource (RFC 9728): its URL, where its metadata lives (the
// bearer challenges point there), and the metadata document itself.
import type { IncomingMessage } from "node:http";
import { getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/server";
import { TOOL_SCOPES } from "../auth/principal.js";
import { MCP_PATH, type Route } from "./routes.js";

export interface ProtectedResource {
  /** The resource: the MCP endpoint's public URL. */
  url(req: IncomingMessage): string;
  /** Where its RFC 9728 metadata is served. */
  metadataUrl(req: IncomingMessage): string;
}

export function protectedResource(publicUrl: string | undefined): ProtectedResource {
  // Never from the Host header (a caller could make the metadata name any resource): the public
  // URL, else the address this connection reached (the gateway requires a public URL off loopback).
  const baseUrl = (req: IncomingMessage) =>
    (publicUrl ?? `http://${urlHost(req.socket.localAddress ?? "127.0.0.1")}:${req.socket.localPort}`).replace(
      /\/+$/,
      "",
    );
  return {
    url: (req) => `${baseUrl(req)}${MCP_PATH}`,
    metadataUrl: (req) => getOAuthProtectedResourceMetadataUrl(new URL(`${baseUrl(req)}${MCP_PATH}`)),
  };
}

/**
 * The metadata, written here: the SDK's builder needs the authorization server's full RFC 8414
 * metadata, which a resource server checking JWTs against a JWKS does not have (and an API-key
 * deployment has no authorization server at all).
 */
export function resourceMetadataRoute(resource: ProtectedResource, authorizationServers: string[] | undefined): Route {
  return (req, res) => {
    const metadata = {
      resource: resource.url(req),
      ...(authorizationServers?.length ? { authorization_servers: authorizationServers } : {}),
      // The tool scopes only: clients ask for what they list, and none should ask for lspmesh:admin.
      scopes_supported: [...TOOL_SCOPES],
      bearer_methods_supported: ["header"],
      resource_name: "lspmesh",
    };
    res
      .writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" })
      .end(JSON.stringify(metadata));
  };
}

/** An address as a URL host: IPv6 in brackets, IPv4-mapped IPv6 as plain IPv4. */
function urlHost(address: string): string {
  const plain = address.replace(/^::ffff:/, "");
  return plain.includes(":") ? `[${plain}]` : plain;
}
