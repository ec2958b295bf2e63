// The separate listener a service serves Prometheus `GET /metrics` on (LSPMESH_METRICS_LISTEN):
// kept off the public port, so tenant names and load figures reach only what can reach this
// address (in Kubernetes: the monitoring namespace, by network policy).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** ["host", "port"] of a host:port listen setting; a bare host listens on port 0 (a free one). */
export function splitHostPort(listen: string): [string, string] {
  const index = listen.lastIndexOf(":");
  if (index < 0) return [listen, "0"];
  return [listen.slice(0, index), listen.slice(index + 1)];
}

export interface MetricsServer {
  /** host:port bound. */
  readonly address: string;
  /** Idempotent. */
  close(): Promise<void>;
}

/** Serves GET /metrics on host:port (port 0: a free one) with what `produce` returns. */
export async function serveMetrics(
  listen: string,
  produce: () => Promise<{ contentType: string; body: string }>,
): Promise<MetricsServer> {
  const [bracketed, port] = splitHostPort(listen);
  // Node's listen() takes an IPv6 address without the brackets of host:port.
  const host = bracketed.replace(/^\[|\]$/g, "");
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    produce().then(
      ({ contentType, body }) => res.writeHead(200, { "content-type": contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(port), host, () => resolve());
  });
  const { address, port: bound } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    address: `${address.includes(":") ? `[${address}]` : address}:${bound}`,
    close() {
      closing ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
