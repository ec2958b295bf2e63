// Composition root for running the gateway on its own: the only place that reads the
// environment and the command line.
import { gatewayConfig, USAGE } from "./config.js";
import { startGateway } from "./gateway.js";
import { createJsonLogger } from "./logger.js";
import { StaticRunnerRouter } from "./runnerRouting.js";
import { StaticWorkspaceResolver } from "./workspaces.js";

async function main(): Promise<void> {
  let config: ReturnType<typeof gatewayConfig>;
  try {
    config = gatewayConfig(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`lspmesh gateway: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exit(2);
  }
  const logger = createJsonLogger({ level: config.logLevel });
  const router = new StaticRunnerRouter(config.runnerAddress);
  const gateway = await startGateway({
    host: config.host,
    port: config.port,
    router,
    workspaces: new StaticWorkspaceResolver({ tenant: config.tenant, workspace: config.workspace }),
    logger,
    callTimeoutMs: config.callTimeoutMs,
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
  }).catch((error: unknown) => {
    router.close();
    throw error;
  });
  logger.info("gateway listening", {
    url: gateway.url,
    runner: config.runnerAddress,
    tenant: config.tenant,
    workspace: config.workspace,
  });

  const stop = (signal: NodeJS.Signals) => {
    logger.info("shutting down", { signal });
    gateway.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error("shutdown failed", { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`lspmesh gateway: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
