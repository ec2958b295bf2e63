// Which Host and Origin headers the MCP endpoint accepts (DNS-rebinding and CSRF protection).
import type { IncomingMessage } from "node:http";
import { isLoopbackHost } from "@lspmesh/service-kit";
import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from "@modelcontextprotocol/server";

export interface Allowlists {
  /** Allowed Host hostnames (no port; IPv6 in brackets); undefined = Host is not checked. */
  hosts: string[] | undefined;
  /**
   * Browser origins accepted; requests without an Origin header (non-browser clients) always
   * pass. On loopback exact origins ("http://localhost:5173"), elsewhere hostnames.
   */
  origins: string[];
  /** Origins are compared exactly (scheme, host and port), not by hostname. */
  exactOrigins: boolean;
}

/** "http://localhost:5173/" → "http://localhost:5173"; undefined for anything but an http(s) origin. */
export function normalizeOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * On loopback only localhost Host names are accepted, and a browser only from the exact origins
 * configured (none by default, besides the server's own): any local web page — a dev server, a package's page — could
 * otherwise drive the tools, since a local server takes no token. Elsewhere the configured lists
 * apply: without a host list the Host header is not checked (tokens protect the endpoint), and
 * without an origin list every browser Origin is refused.
 */
export function allowlistsFor(bindHost: string, configured: { hosts?: string[]; origins?: string[] }): Allowlists {
  if (isLoopbackHost(bindHost)) {
    const origins = (configured.origins ?? []).flatMap((origin) => normalizeOrigin(origin) ?? []);
    return { hosts: localhostAllowedHostnames(), origins, exactOrigins: true };
  }
  return { hosts: configured.hosts, origins: configured.origins ?? [], exactOrigins: false };
}

/** Why a request's Host is refused (DNS rebinding), or undefined when it may proceed. */
export function hostRefusal(allowlists: Allowlists): (req: IncomingMessage) => string | undefined {
  const hosts = allowlists.hosts;
  if (!hosts) return () => undefined;
  return (req) => {
    const result = validateHostHeader(req.headers.host, hosts);
    return result.ok ? undefined : result.message;
  };
}

/** Why a request's Origin is refused (a browser page it may not come from), or undefined when it may proceed. */
export function originRefusal(allowlists: Allowlists): (req: IncomingMessage) => string | undefined {
  if (!allowlists.exactOrigins) {
    return (req) => {
      const result = validateOriginHeader(req.headers.origin, allowlists.origins);
      return result.ok ? undefined : result.message;
    };
  }
  const allowed = new Set(allowlists.origins);
  return (req) => {
    const header = req.headers.origin;
    if (header === undefined) return undefined;
    const origin = normalizeOrigin(header) ?? "";
    // Same origin (the Host already checked to be a localhost name): no other site's page.
    if (allowed.has(origin) || origin === normalizeOrigin(`http://${req.headers.host ?? ""}`)) return undefined;
    return `Origin '${header}' may not call this local lspmesh: browser pages are refused unless it is started with --allow-origin ${normalizeOrigin(header) ?? "ORIGIN"}`;
  };
}
