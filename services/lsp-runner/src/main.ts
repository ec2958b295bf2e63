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
//   LSPMESH_LANGUAGES_FILE   JSON file overriding or adding language servers (docs/languages.md)
//   LSPMESH_SERVER_MEMORY_MB resident memory all language servers may use together (default 75 % of
//                            the container's memory limit; none without one)
//   LSPMESH_IDLE_TIMEOUT_S   a session unused this long is stopped (default 1800; 0 never)
//   LSPMESH_WARMUP           sessions started at once: tenant/workspace/language[,…] (default none)
import type { RunnerEventBus } from "./events/eventBus.js";
import { NatsEventBus } from "./events/natsEventBus.js";
import { LanguageConfigError, loadLanguageRegistry } from "./lsp/languageConfig.js";
import { containerMemoryBudget } from "./lsp/memoryBudget.js";
import { startRunnerServer } from "./runnerServer.js";
import { parseWarmUpList } from "./sessionWarmUp.js";
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

const languagesFile = process.env.LSPMESH_LANGUAGES_FILE || undefined;
const languages = await loadLanguageRegistry(languagesFile).catch((error: unknown) => {
  if (!(error instanceof LanguageConfigError)) throw error;
  log({ level: "error", msg: "invalid languages file", file: error.source, problems: error.problems });
  process.exit(2);
});
log({
  level: "info",
  msg: "languages",
  file: languagesFile,
  enabled: languages.languages.map((language) => language.id),
  installed: languages.installed().map((language) => language.id),
});

const runner = await startRunnerServer({
  listen: env.LSPMESH_LISTEN ?? "0.0.0.0:7421",
  locator: new VolumeWorkspaceLocator(env.LSPMESH_WORKSPACES_ROOT ?? "/workspaces"),
  languages,
  maxFileBytes: number("LSPMESH_MAX_FILE_BYTES"),
  sessionPolicy: {
    memoryBudgetBytes: env.LSPMESH_SERVER_MEMORY_MB
      ? (number("LSPMESH_SERVER_MEMORY_MB") ?? 0) * 1024 * 1024
      : await containerMemoryBudget(),
    idleTimeoutMs: env.LSPMESH_IDLE_TIMEOUT_S ? (number("LSPMESH_IDLE_TIMEOUT_S") ?? 0) * 1000 : undefined,
  },
  warmUp: parseWarmUpList(env.LSPMESH_WARMUP ?? ""),
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
