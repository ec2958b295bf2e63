// Which Host and Origin headers the MCP endpoint accepts (DNS-rebinding and CSRF protection).
import { localhostAllowedHostnames, localhostAllowedOrigins } from "@modelcontextprotocol/server";

export interface Allowlists {
  /** Allowed Host hostnames (no port; IPv6 in brackets); undefined = Host is not checked. */
  hosts: string[] | undefined;
  /** Allowed Origin hostnames; requests without an Origin header (non-browser clients) always pass. */
  origins: string[];
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/**
 * On loopback only localhost names are accepted, whatever is configured. Elsewhere the configured
 * lists apply: without a host list the Host header is not checked (tokens protect the endpoint),
 * and without an origin list every browser Origin is refused.
 */
export function allowlistsFor(bindHost: string, configured: { hosts?: string[]; origins?: string[] }): Allowlists {
  if (isLoopbackHost(bindHost)) return { hosts: localhostAllowedHostnames(), origins: localhostAllowedOrigins() };
  return { hosts: configured.hosts, origins: configured.origins ?? [] };
}
