// A cluster on loopback for multi-process tests: `lspmesh runner` and `lspmesh gateway` child
// processes, the way an operator runs them. Runners register themselves in NATS KV.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NATS_USERS } from "@lspmesh/events";
import { createClient, GrpcAuth } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import type { NatsServer } from "./natsServer.js";
import { descendantPids, isRunning } from "./serveProcess.js";

/** A NATS server of the test kit (credentials per identity when secured), or a bare URL. */
export type NatsTarget = NatsServer | string;

function natsUrlOf(nats: NatsTarget): string {
  return typeof nats === "string" ? nats : nats.url;
}

function natsEnv(nats: NatsTarget, user: string): Record<string, string> {
  return typeof nats === "string" ? {} : nats.env(user);
}

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/lspmesh.js", import.meta.url));
/**
 * Registry heartbeat of the runners, in ms (default of startRunnerProcess): an entry is stale after
 * 3 of them. Not shorter: a runner busy indexing on a loaded 2-core machine must not look dead.
 */
export const HEARTBEAT_MS = 2000;

let secretFile: string | undefined;
/**
 * The gRPC shared secret of this test process's clusters, as operators deploy it: a file both
 * runners and gateways read (LSPMESH_GRPC_SECRET_FILE).
 */
export function clusterSecretFile(): string {
  if (!secretFile) {
    const dir = mkdtempSync(join(tmpdir(), "lspmesh-cluster-secret-"));
    // One per test process, removed when it exits (the services reading it are stopped by then).
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    secretFile = join(dir, "grpc-secret");
    writeFileSync(secretFile, randomBytes(32).toString("base64url"), { mode: 0o600 });
  }
  return secretFile;
}

/** A typed Runner client carrying the cluster's secret (tests asking a runner directly). */
export function clusterRunnerClient(address: string) {
  const auth = GrpcAuth.from({ secretFile: clusterSecretFile() });
  return createClient(Runner, address, auth.channelCredentials(), {}, () => auth.callMetadata());
}

/** How long a child may take to log that it listens, in ms. */
const START_TIMEOUT_MS = 30_000;

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  stderr(): string;
  /** SIGTERM (graceful) or SIGKILL; waits for the exit. Idempotent. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Spawns `lspmesh <args>` and waits for the JSON log line with `msg` on stderr; returns that line. */
async function spawnService(
  args: string[],
  env: Record<string, string>,
  msg: string,
  /** A command the service runs under (e.g. bwrap hiding folders, as another pod would not have them). */
  wrapper: string[] = [],
): Promise<{ service: ServiceProcess; line: Record<string, unknown> }> {
  const [command, ...prefix] = [...wrapper, process.execPath];
  const child = spawn(command!, [...prefix, CLI, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env },
  });
  let stderr = "";
  const exited = once(child, "exit");
  const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`lspmesh ${args[0]} did not start: ${stderr}`)), START_TIMEOUT_MS);
    // Lines are looked at only until the start line came, and each once (a service logs a line per
    // call: scanning all it wrote at every chunk made long runs quadratic in this process).
    let started = false;
    let partial = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (started) return;
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      const text = lines.find((candidate) => candidate.includes(`"${msg}"`));
      if (text === undefined) return;
      started = true;
      clearTimeout(timer);
      resolve(JSON.parse(text) as Record<string, unknown>);
    });
    void exited.then(([code]) => reject(new Error(`lspmesh ${args[0]} exited with ${code}: ${stderr}`)));
  });
  let stopping: Promise<void> | undefined;
  const service: ServiceProcess = {
    child,
    pid: child.pid!,
    stderr: () => stderr,
    stop(signal = "SIGTERM") {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        await exited;
      })();
      return stopping;
    },
  };
  return { service, line };
}

export interface RunnerProcess extends ServiceProcess {
  readonly address: string;
  /** Where gateways connect straight to its tenants' workers (LSPMESH_WORKER_LISTEN), when on. */
  readonly workerAddress: string | undefined;
  /** SIGKILL, then SIGKILL to the language servers it leaves orphaned (they are ours to clean). */
  kill(): Promise<void>;
  /** Language sessions the runner holds for a workspace (asked over gRPC, starts nothing). */
  sessions(tenant: string, workspace: string): Promise<string[]>;
  /** Its Prometheus text (GET /metrics on a free loopback port). */
  metrics(): Promise<string>;
}

export interface RunnerProcessOptions {
  /** The runner's languages file content; default: a TypeScript pool (other built-ins off). */
  languages?: { languages: Record<string, unknown> };
  /** LSPMESH_POOL (default "typescript"). */
  pool?: string;
  /** LSPMESH_TENANTS: the tenants this runner serves (default any). */
  tenants?: readonly string[];
  /** More LSPMESH_* settings (e.g. LSPMESH_SANDBOX). */
  env?: Record<string, string>;
  /**
   * Direct worker connections (LSPMESH_WORKER_LISTEN on a free loopback port), as deployed;
   * default true. Gateways then send each tenant's calls straight to its worker.
   */
  workerConnections?: boolean;
  /**
   * Registry heartbeat, in ms (default HEARTBEAT_MS): a test waiting for a killed runner to go
   * stale (3 heartbeats) waits less with a shorter one.
   */
  heartbeatMs?: number;
  /**
   * Folders this runner (and everything it starts) must not see, as a pod that mounts only its
   * tenant's volume: the runner runs under bubblewrap with an empty tmpfs over each.
   */
  hide?: readonly string[];
}

export async function startRunnerProcess(
  workspacesRoot: string,
  nats: NatsTarget,
  id: string,
  options: RunnerProcessOptions = {},
): Promise<RunnerProcess> {
  if (typeof nats !== "string") await nats.addRunner(id, options.tenants);
  // A TypeScript pool by default (deployments run one runner pool per language).
  const languagesFile = join(workspacesRoot, "..", `${id}.languages.json`);
  writeFileSync(
    languagesFile,
    JSON.stringify(
      options.languages ?? {
        languages: Object.fromEntries(["python", "go", "cpp", "rust"].map((id) => [id, { enabled: false }])),
      },
    ),
  );
  // Port, id and advertised address are fixed up front: the registry entry the runner writes
  // names exactly the address the test talks to. Another process may take the free port before the
  // runner binds it: then the runner is started again on another.
  const start = async (port: number) =>
    spawnService(
      [
        "runner",
        "--listen",
        `127.0.0.1:${port}`,
        "--workspaces-root",
        workspacesRoot,
        "--metrics-listen",
        "127.0.0.1:0",
      ],
      {
        LSPMESH_NATS_URL: natsUrlOf(nats),
        ...natsEnv(nats, NATS_USERS.runner(id)),
        ...(options.tenants ? { LSPMESH_TENANTS: options.tenants.join(",") } : {}),
        LSPMESH_RUNNER_ID: id,
        LSPMESH_ADVERTISE_ADDRESS: `127.0.0.1:${port}`,
        LSPMESH_HEARTBEAT_MS: String(options.heartbeatMs ?? HEARTBEAT_MS),
        LSPMESH_POOL: options.pool ?? "typescript",
        LSPMESH_LANGUAGES_FILE: languagesFile,
        LSPMESH_GRPC_SECRET_FILE: clusterSecretFile(),
        // A test's teardown stops runners with calls it abandoned still in flight: wait for them
        // 3 s, not the production 45 s (no handoff then: LSPMESH_HANDOFF_MS defaults to the drain minus
        // the 30 s call deadline; runnerHandoff.test.ts sets both).
        LSPMESH_DRAIN_MS: "3000",
        ...(options.workerConnections === false ? {} : { LSPMESH_WORKER_LISTEN: "127.0.0.1:0" }),
        ...options.env,
      },
      "runner listening",
      options.hide?.length
        ? ["bwrap", "--bind", "/", "/", "--die-with-parent", ...options.hide.flatMap((path) => ["--tmpfs", path])]
        : [],
    );
  let port = await freePort();
  let started: Awaited<ReturnType<typeof start>> | undefined;
  for (let attempt = 1; !started; attempt++) {
    try {
      started = await start(port);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes("EADDRINUSE")) throw error;
      port = await freePort();
    }
  }
  const { service, line } = started;
  const address = `127.0.0.1:${port}`;
  const client = clusterRunnerClient(address);
  let leftovers: number[] = [];
  return {
    ...service,
    address,
    workerAddress: typeof line.workerAddress === "string" ? line.workerAddress : undefined,
    async kill() {
      leftovers = descendantPids(service.pid);
      client.close();
      await service.stop("SIGKILL");
      for (const pid of leftovers.filter(isRunning)) killIfRunning(pid);
    },
    async stop(signal) {
      client.close();
      await service.stop(signal);
    },
    metrics: async () => (await fetch(String(line.metrics))).text(),
    async sessions(tenant, workspace) {
      // 15 s: a loaded 2-core machine (two e2e files at once) has let a 5 s status call expire.
      const answer = await client.workspaceStatus({ workspace: { tenant, workspace } }, { timeoutMs: 15_000 });
      return answer.languages.map((language) => language.language);
    },
  };
}

export interface GatewayProcess extends ServiceProcess {
  readonly url: URL;
  metrics(): Promise<string>;
  /** Runners its registry holds live now (the lspmesh_runners_live gauge). */
  liveRunners(): Promise<number>;
}

export async function startGatewayProcess(options: {
  natsUrl: NatsTarget;
  /** Tenancy from files, or (control) from the NATS control plane (`lspmesh admin`). */
  apiKeysFile?: string;
  tenantsFile?: string;
  control?: boolean;
  jwt?: { jwksUrl: string; issuer: string; audience: string };
  /** Environment on top of the cluster's (e.g. other gRPC credentials). */
  env?: Record<string, string>;
}): Promise<GatewayProcess> {
  const jwt = options.jwt
    ? ["--jwks-url", options.jwt.jwksUrl, "--jwt-issuer", options.jwt.issuer, "--jwt-audience", options.jwt.audience]
    : [];
  const { service, line } = await spawnService(
    [
      "gateway",
      "--nats",
      natsUrlOf(options.natsUrl),
      ...(options.control
        ? ["--control", "nats"]
        : ["--api-keys", String(options.apiKeysFile), "--tenants", String(options.tenantsFile)]),
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--metrics-listen",
      "127.0.0.1:0",
      ...jwt,
    ],
    {
      LSPMESH_LOG_LEVEL: "info",
      LSPMESH_GRPC_SECRET_FILE: clusterSecretFile(),
      ...natsEnv(options.natsUrl, NATS_USERS.gateway),
      ...options.env,
    },
    "gateway listening",
  );
  const url = new URL(String(line.url));
  // Metrics are on their own listener (the main port has none in token mode).
  const metrics = async () => (await fetch(String(line.metrics))).text();
  const liveRunners = async () => Number(/^lspmesh_runners_live (\d+)$/m.exec(await metrics())?.[1] ?? 0);
  return { ...service, url, metrics, liveRunners };
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

/** SIGKILL to a process that may exit between the check and the kill (ESRCH is not an error then). */
function killIfRunning(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}
