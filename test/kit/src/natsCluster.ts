// A real NATS cluster for tests: nodes (default 3) of nats-server on free loopback ports, joined by
// `cluster { routes }` (every node routes to every other), JetStream on each with its own store,
// as deploy/nats runs it. A node can be killed (SIGKILL: a lost machine, no lame duck) and started
// again on the same ports and store, to show clients and streams ride through the loss.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, listening, NATS_SERVER_BINARY } from "./natsServer.js";
import { waitFor } from "./waitFor.js";

export interface NatsClusterNode {
  /** Its server_name (`n0`, `n1`, …; with a config file: also its POD_NAME). */
  readonly name: string;
  readonly url: string;
  readonly port: number;
  /** The monitoring port (GET /healthz, /jsz). */
  readonly monitorPort: number;
  /** The process id now; undefined while it is down. */
  pid(): number | undefined;
  /** Kills it at once (SIGKILL), as a lost machine; resolves when the process is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and store, and waits for it to be healthy. */
  restart(): Promise<void>;
}

export interface NatsCluster extends AsyncDisposable {
  readonly nodes: readonly NatsClusterNode[];
  /** Every node's client URL, comma-separated (LSPMESH_NATS_URL for a cluster). */
  readonly url: string;
  readonly urls: readonly string[];
  node(name: string): NatsClusterNode;
  /** Stops every node (SIGTERM, SIGKILL after 2 s) and removes the stores. Idempotent. */
  close(): Promise<void>;
}

export interface NatsClusterOptions {
  /** Nodes (default 3). */
  size?: number;
  /**
   * A configuration file per node (e.g. the shipped deploy/nats/nats.conf); ports, routes, store and
   * server name are still the test's (flags override the file). Unset: JetStream from flags only.
   */
  configFile?: (node: number) => string;
  /** Variables a node's configuration file reads (`$NAME`); POD_NAME is set to its name. */
  env?: (node: number) => Record<string, string>;
}

/** The cluster's name on its routes. */
const CLUSTER_NAME = "lspmesh";

export async function startNatsCluster(options: NatsClusterOptions = {}): Promise<NatsCluster> {
  const size = options.size ?? 3;
  const dir = mkdtempSync(join(tmpdir(), "lspmesh-nats-cluster-"));
  const ports = [];
  for (let i = 0; i < size; i++)
    ports.push({ client: await freePort(), route: await freePort(), monitor: await freePort() });
  const routes = ports.map((p) => `nats://127.0.0.1:${p.route}`).join(",");
  const nodes = ports.map((p, i) => clusterNode(i, p, routes, join(dir, `n${i}`), options));
  const close = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  let closing: Promise<void> | undefined;
  const cluster: NatsCluster = {
    nodes,
    urls: nodes.map((node) => node.url),
    url: nodes.map((node) => node.url).join(","),
    node: (name) => {
      const found = nodes.find((node) => node.name === name);
      if (!found) throw new Error(`no NATS node named ${name}`);
      return found;
    },
    close: () => {
      closing ??= close();
      return closing;
    },
    [Symbol.asyncDispose]: () => cluster.close(),
  };
  try {
    await Promise.all(nodes.map((node) => node.launch()));
    await Promise.all(nodes.map((node) => node.healthy()));
  } catch (error) {
    await cluster.close();
    throw error;
  }
  return cluster;
}

type Ports = { client: number; route: number; monitor: number };

function clusterNode(index: number, ports: Ports, routes: string, store: string, options: NatsClusterOptions) {
  const name = `n${index}`;
  mkdirSync(store, { recursive: true });
  const config = options.configFile ? ["-c", options.configFile(index)] : ["-js"];
  const args = [
    ...config,
    ...["-n", name, "-a", "127.0.0.1", "-p", String(ports.client), "-m", String(ports.monitor), "-sd", store],
    ...["--cluster_name", CLUSTER_NAME, "--cluster", `nats://127.0.0.1:${ports.route}`, "--routes", routes],
  ];
  const env = { ...process.env, ...options.env?.(index), POD_NAME: name };
  let child: ChildProcess | undefined;
  const end = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, "exit");
    running.kill(signal);
    const timer = setTimeout(() => running.kill("SIGKILL"), 2_000);
    await exited;
    clearTimeout(timer);
  };
  const launch = async () => {
    child = spawn(NATS_SERVER_BINARY, args, { stdio: "ignore", env });
    await waitFor(`NATS node ${name} listening on ${ports.client}`, () => listening(ports.client), {
      timeoutMs: 10_000,
    });
  };
  /** Healthy: JetStream enabled and current with the cluster's meta leader (GET /healthz). */
  const healthy = () =>
    waitFor(`NATS node ${name} healthy`, async () => (await fetch(`http://127.0.0.1:${ports.monitor}/healthz`)).ok, {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
  return {
    name,
    url: `nats://127.0.0.1:${ports.client}`,
    port: ports.client,
    monitorPort: ports.monitor,
    pid: () => child?.pid,
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
    launch,
    healthy,
    restart: async () => {
      await launch();
      await healthy();
    },
  };
}
