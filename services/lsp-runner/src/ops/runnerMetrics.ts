// Prometheus metrics of one runner, served on --metrics-listen (off by default): the diagnostics
// outbox (what waits for NATS, and what it had to drop), the NATS connection, and the language
// servers by language and state. Labels stay bounded: languages come from configuration.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { RunnerEventBus } from "../events/eventBus.js";
import { splitHostPort } from "../listenAddress.js";
import type { SessionManager } from "../lsp/pool/sessionManager.js";

export function runnerMetricsRegistry(events: RunnerEventBus, sessions: SessionManager): Registry {
  const registry = new Registry();
  const registers = [registry];
  new Gauge({
    name: "lspmesh_runner_diagnostics_outbox_messages",
    help: "Diagnostics messages waiting to be published (NATS unreachable or refusing), newest per file.",
    registers,
    collect() {
      this.set(events.pendingDiagnostics);
    },
  });
  new Counter({
    name: "lspmesh_runner_diagnostics_dropped_total",
    help: "Diagnostics messages dropped: the outbox overflowed (10 000 files) or NATS refused one 5 times while connected.",
    registers,
    collect() {
      this.reset();
      this.inc(events.droppedDiagnostics);
    },
  });
  new Gauge({
    name: "lspmesh_runner_nats_connected",
    help: "1 while the runner's NATS connection is up (or it runs without NATS), else 0.",
    registers,
    collect() {
      this.set(events.connected ? 1 : 0);
    },
  });
  new Gauge({
    name: "lspmesh_runner_language_servers",
    help: "Language-server sessions by language and state (starting, indexing, ready, degraded, failed, stopped).",
    labelNames: ["language", "state"],
    registers,
    collect() {
      this.reset();
      for (const status of sessions.statuses()) this.inc({ language: status.language, state: status.state });
    },
  });
  new Counter({
    name: "lspmesh_runner_language_server_restarts_total",
    help: "Restarts of language servers after a failure (crash, hang, stopped process), by language, over live sessions.",
    labelNames: ["language"],
    registers,
    collect() {
      this.reset();
      for (const status of sessions.statuses()) this.inc({ language: status.language }, status.restarts);
    },
  });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export interface MetricsServer {
  readonly address: string;
  /** Idempotent. */
  close(): Promise<void>;
}

/** Serves GET /metrics on host:port (port 0: a free one). */
export async function serveMetrics(listen: string, registry: Registry): Promise<MetricsServer> {
  const [bracketed, port] = splitHostPort(listen);
  // Node's listen() takes an IPv6 address without the brackets of host:port.
  const host = bracketed.replace(/^\[|\]$/g, "");
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { "content-type": registry.contentType }).end(body),
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
