// Composition root of a standalone runner: the only place that reads the environment.
//   LSPMESH_LISTEN             host:port for gRPC (default 0.0.0.0:7421)
//   LSPMESH_WORKSPACES_ROOT    volume holding <tenant>/<workspace> folders (default /workspaces)
//   LSPMESH_MAX_FILE_BYTES     largest file sent to a language server (default 4 MiB)
//   LSPMESH_NATS_URL           NATS server(s), comma-separated; unset = no NATS (in-process events)
//   LSPMESH_RUNNER_ID          registry key (default <hostname>-<pid>)
//   LSPMESH_ADVERTISE_ADDRESS  host:port gateways dial (default <hostname>:<port>)
//   LSPMESH_POOL               runner pool in the registry (default "default")
//   LSPMESH_TENANTS            comma-separated tenant allowlist (dedicated pool; default: any tenant)
//   LSPMESH_HEARTBEAT_MS       registry heartbeat (default 5000)
//   LSPMESH_WATCH              "0" turns inotify watching off (network volumes: writers announce changes)
//   LSPMESH_DRAIN_MS           time in-flight requests get on SIGTERM (default 20000)
import type { RunnerEventBus } from "./events/eventBus.js";
import { NatsEventBus } from "./events/natsEventBus.js";
import { startRunnerServer } from "./runnerServer.js";
import { VolumeWorkspaceLocator } from "./workspace/workspaceLocator.js";

const env = process.env;
const log = (entry: Record<string, unknown>) =>
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), service: "runner", ...entry })}\n`);
const list = (value: string | undefined) =>
  value
    ?.split(",")
    .map((item) => item.trim())
    .filter(Boolean);
const number = (name: string): number | undefined => {
  const value = env[name];
  if (value === undefined || value === "") return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) {
    log({ level: "error", msg: `${name} must be a non-negative number, got '${value}'` });
    process.exit(2);
  }
  return parsed;
};

/** Startup failures end the process with one clear log line, not a stack trace. */
const fail =
  (msg: string) =>
  (error: unknown): never => {
    log({ level: "error", msg, error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  };

const tenants = list(env.LSPMESH_TENANTS);
let bus: RunnerEventBus | undefined;
if (env.LSPMESH_NATS_URL) {
  bus = await NatsEventBus.connect({ servers: env.LSPMESH_NATS_URL, name: env.LSPMESH_RUNNER_ID, log }).catch(
    fail("cannot reach NATS at LSPMESH_NATS_URL; check the URL and that JetStream is enabled"),
  );
  log({ level: "info", msg: "connected to NATS" });
}

const runner = await startRunnerServer({
  listen: env.LSPMESH_LISTEN ?? "0.0.0.0:7421",
  locator: new VolumeWorkspaceLocator(env.LSPMESH_WORKSPACES_ROOT ?? "/workspaces"),
  maxFileBytes: number("LSPMESH_MAX_FILE_BYTES"),
  events: bus,
  runnerId: env.LSPMESH_RUNNER_ID || undefined,
  advertiseAddress: env.LSPMESH_ADVERTISE_ADDRESS || undefined,
  pool: env.LSPMESH_POOL || undefined,
  tenants: tenants?.length ? tenants : undefined,
  heartbeatMs: number("LSPMESH_HEARTBEAT_MS"),
  watchWorkspaces: env.LSPMESH_WATCH !== "0",
  log,
}).catch(async (error) => {
  await bus?.close();
  return fail("runner not started")(error);
});
log({ level: "info", msg: "runner listening", address: runner.address, id: runner.id, nats: Boolean(bus) });

// SIGTERM: health NOT_SERVING and registry entry removed, in-flight requests finished, language
// servers stopped, queued diagnostics delivered and NATS drained; then exit. A second signal exits now.
let draining = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (draining) process.exit(130);
    draining = true;
    log({ level: "info", msg: "draining", signal });
    void (async () => {
      await runner.close(number("LSPMESH_DRAIN_MS") ?? 20_000);
      await bus?.close();
      log({ level: "info", msg: "drained" });
      process.exit(0);
    })().catch((error) => {
      log({ level: "error", msg: "error while draining", error: String(error) });
      process.exit(1);
    });
  });
}
