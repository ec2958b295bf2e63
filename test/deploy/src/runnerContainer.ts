// A runner image run by podman as a Pod Security "restricted" pod runs it (the shipped layout:
// workspaces root, Secrets under /var/run/secrets, tmpfs /tmp as the pods' emptyDir), beside a NATS
// container on a podman network, and the official MCP client calling the gateway on the host.
// Shared by the podman tests that run runner images (crossTenant, nativeImages).
import { chownSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CallTool, clusterSecretFile, type GatewayProcess, type ToolResult } from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { NatsContainer } from "./natsContainer.js";
import { podman, podmanLogs } from "./podman.js";

/** The images' user (deploy/docker/runner.Dockerfile): the workers run as it too. */
export const RUNNER_USER = { uid: 10001, gid: 10001 };
export const RUNNER_PORT = 7421;
/** Where the runner sees things: the shipped layout (workspaces root, secrets under /var/run/secrets). */
export const IN_RUNNER = {
  workspaces: "/workspaces",
  grpcSecret: "/var/run/secrets/lspmesh/grpc/secret",
  natsPasswords: "/var/run/secrets/lspmesh/nats",
  languages: "/etc/lspmesh/languages.json",
};
/**
 * Exactly the restricted settings, nothing else about privileges: no --privileged, no
 * --cap-add, no --security-opt seccomp=… (podman's default profile), no --userns.
 */
export const RESTRICTED = [
  "--user",
  `${RUNNER_USER.uid}:${RUNNER_USER.gid}`,
  "--cap-drop=all",
  "--security-opt=no-new-privileges",
  "--read-only",
];

/** Free IPv4 addresses .10, .11, … of the network's subnet (podman picks it; runners' must be known before they start). */
export async function addressesOf(network: string, count = 2): Promise<string[]> {
  const subnets = (await podman("network", "inspect", "--format", "{{range .Subnets}}{{.Subnet}} {{end}}", network))
    .trim()
    .split(/\s+/);
  const ipv4 = subnets.find((subnet) => /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(subnet));
  const [base, prefix] = ipv4?.split("/") ?? [];
  if (!base || Number(prefix) > 24) throw new Error(`network ${network} has no IPv4 /24 or larger: ${subnets}`);
  return Array.from({ length: count }, (_, index) => base.replace(/\d+$/, String(10 + index)));
}

/** A file only the runner's user may read, as a mounted Secret. */
export function secretFile(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o400 });
  chownSync(path, RUNNER_USER.uid, RUNNER_USER.gid);
}

/**
 * The Secrets runner pods mount, under `dir`: the gRPC secret the gateway also reads, and each
 * runner's NATS password. Returns the two paths to mount.
 */
export function runnerSecrets(
  dir: string,
  nats: NatsContainer,
  runnerIds: readonly string[],
): { grpcSecret: string; natsPasswords: string } {
  const natsPasswords = join(dir, "nats");
  mkdirSync(natsPasswords, { recursive: true });
  const grpcSecret = join(dir, "grpc-secret");
  secretFile(grpcSecret, readFileSync(clusterSecretFile(), "utf8"));
  for (const id of runnerIds) secretFile(join(natsPasswords, id), nats.env(id).LSPMESH_NATS_PASSWORD!);
  return { grpcSecret, natsPasswords };
}

/** Starts a runner image detached, restricted, with tenant workers, registered in NATS as `id`. */
export async function startRunnerContainer(options: {
  name: string;
  image: string;
  network: string;
  ip: string;
  id: string;
  pool: string;
  nats: NatsContainer;
  /** The workspaces root on the host (bind-mounted at /workspaces). */
  workspaces: string;
  secrets: { grpcSecret: string; natsPasswords: string };
  /** More `--volume` values (host:container[:options]). */
  volumes?: readonly string[];
}): Promise<void> {
  await podman(
    "run",
    "--detach",
    "--name",
    options.name,
    "--network",
    options.network,
    "--ip",
    options.ip,
    ...RESTRICTED,
    // The one writable place, as the pods' emptyDir: HOME, TMPDIR and the workers' state.
    "--tmpfs",
    "/tmp:rw,nosuid,nodev,mode=1777",
    "--volume",
    `${options.workspaces}:${IN_RUNNER.workspaces}`,
    "--volume",
    `${options.secrets.grpcSecret}:${IN_RUNNER.grpcSecret}:ro`,
    "--volume",
    `${options.secrets.natsPasswords}:${IN_RUNNER.natsPasswords}:ro`,
    ...(options.volumes ?? []).flatMap((volume) => ["--volume", volume]),
    "--env",
    "LSPMESH_WORKERS=auto",
    "--env",
    `LSPMESH_RUNNER_ID=${options.id}`,
    "--env",
    `LSPMESH_ADVERTISE_ADDRESS=${options.ip}:${RUNNER_PORT}`,
    "--env",
    `LSPMESH_NATS_URL=${options.nats.url}`,
    "--env",
    `LSPMESH_NATS_PASSWORD_DIR=${IN_RUNNER.natsPasswords}`,
    "--env",
    `LSPMESH_GRPC_SECRET_FILE=${IN_RUNNER.grpcSecret}`,
    "--env",
    `LSPMESH_POOL=${options.pool}`,
    "--env",
    "LSPMESH_HEARTBEAT_MS=2000",
    "--env",
    "LSPMESH_DRAIN_MS=3000",
    options.image,
  );
}

/** Whether a container is running now. */
export const containerRunning = async (name: string) =>
  (await podman("inspect", "--format", "{{.State.Running}}", name).catch(() => "")).trim() === "true";

/** One tenant's MCP client of the gateway (kept in `clients`, to be closed), as a tool caller. */
export async function connectMcp(
  gateway: GatewayProcess,
  token: string,
  name: string,
  clients: Client[],
): Promise<CallTool> {
  const client = new Client({ name, version: "1.0.0" });
  clients.push(client);
  await client.connect(
    new StreamableHTTPClientTransport(gateway.url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return async (tool, args) =>
    (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as ToolResult;
}

/** The last lines each container and the gateway logged, for a failure's message. */
export async function containerLogs(
  containers: readonly string[],
  gateway: GatewayProcess | undefined,
): Promise<string> {
  const parts = await Promise.all(
    containers.map(
      async (name) => `--- ${name}\n${(await podmanLogs(name, "--tail", "40").catch(String)).slice(-4000)}`,
    ),
  );
  return `${parts.join("\n")}\n--- gateway\n${gateway?.stderr().slice(-3000) ?? ""}`;
}
