// Composition root of a standalone runner, and the only place that reads the environment and the
// command line. `lspmesh runner` calls main() with its arguments; `node dist/main.js` runs it
// directly. Settings: config.ts (RUNNER_USAGE, docs/operations.md).
import { pathToFileURL } from "node:url";
import { GrpcAuthError } from "@lspmesh/grpc";
import {
  closeOnSignals,
  createJsonLogger,
  type Environment,
  errorMessage,
  SettingsError,
  startTracing,
} from "@lspmesh/service-kit";
import { RUNNER_USAGE, type RunnerConfig, runnerConfig } from "./config.js";
import type { RunnerEventBus } from "./events/eventBus.js";
import { NatsEventBus } from "./events/natsEventBus.js";
import { LanguageConfigError } from "./lsp/languages/languageConfig.js";
import { SandboxUnavailableError, startRunner } from "./startRunner.js";

/** Runs the runner until SIGINT/SIGTERM. Bad settings exit 2 with one line and the usage. */
export async function main(argv: readonly string[], env: Environment): Promise<void> {
  let config: RunnerConfig;
  try {
    config = runnerConfig(argv, env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`lspmesh runner: ${error.message}\n\n${RUNNER_USAGE}\n`);
    process.exit(2);
  }
  const logger = createJsonLogger({ service: "runner", level: config.logLevel });
  const log = ({ level, msg, ...fields }: Record<string, unknown>) => {
    const at = level === "debug" || level === "warn" || level === "error" ? level : "info";
    logger[at](String(msg ?? ""), fields);
  };
  /** Startup failures end the process with one clear log line, not a stack trace. */
  const fail = (msg: string, code: number, fields: Record<string, unknown> = {}): never => {
    logger.error(msg, fields);
    process.exit(code);
  };

  // Off unless OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set; started before anything that traces.
  const tracing = await startTracing({ serviceName: "lspmesh-runner", env, warn: (message) => logger.warn(message) });
  if (tracing.enabled) logger.info("tracing on: spans exported over OTLP");

  let bus: RunnerEventBus | undefined;
  if (config.natsUrl) {
    bus = await NatsEventBus.connect({
      servers: config.natsUrl,
      name: config.runnerId,
      auth: config.natsAuth,
      log,
      replicas: config.jetstreamReplicas,
      symbolIndex: { maxBytesPerTenant: config.symbolIndex.maxBytesPerTenant, replicas: config.jetstreamReplicas },
    }).catch((error) =>
      fail("cannot reach NATS at LSPMESH_NATS_URL; check the URL and that JetStream is enabled", 1, {
        error: errorMessage(error),
      }),
    );
    logger.info("connected to NATS");
  }
  const runner = await startRunner(config, { events: bus, log }).catch(async (error: unknown) => {
    await bus?.close();
    if (error instanceof LanguageConfigError) {
      return fail("invalid languages file", 2, { file: error.source, problems: error.problems });
    }
    if (error instanceof GrpcAuthError || error instanceof SandboxUnavailableError) return fail(error.message, 2);
    return fail("runner not started", 1, { error: errorMessage(error) });
  });
  logger.info("runner listening", {
    address: runner.address,
    id: runner.id,
    nats: Boolean(bus),
    grpcAuth: config.grpcAuth
      ? [config.grpcAuth.tls && "mtls", config.grpcAuth.secretFile && "secret"].filter(Boolean).join("+")
      : "none (loopback only)",
    ...(runner.metricsAddress ? { metrics: `http://${runner.metricsAddress}/metrics` } : {}),
    ...(runner.workerAddress ? { workerAddress: runner.workerAddress } : {}),
  });

  // SIGTERM: health NOT_SERVING and registry entry removed, in-flight requests finished, language
  // servers stopped, queued diagnostics delivered and NATS drained; then exit.
  closeOnSignals(
    async () => {
      logger.info("draining", { drainMs: config.drainMs });
      await runner.close(config.drainMs);
      await bus?.close();
      await tracing.close();
      logger.info("drained");
    },
    { log: (message, fields) => logger.info(message, fields) },
  );
}

// Run directly (node dist/main.js): the process arguments and environment.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), process.env).catch((error: unknown) => {
    process.stderr.write(`lspmesh runner: ${errorMessage(error)}\n`);
    process.exit(1);
  });
}
