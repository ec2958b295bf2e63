// Composition root for running the gateway on its own: the only place that reads the
// environment and the command line.
import { pathToFileURL } from "node:url";
import {
  CONTROL_BUCKET,
  createKvBucket,
  NATS_CONNECTION_OPTIONS,
  NatsSymbolIndexStore,
  natsConnectOptions,
  natsServers,
  probedKvWatch,
  WorkspaceUsageStore,
} from "@lspmesh/events";
import { GrpcAuth } from "@lspmesh/grpc";
import {
  closeOnSignals,
  createJsonLogger,
  type Environment,
  errorMessage,
  type Logger,
  SecretFile,
  SettingsError,
  startTracing,
} from "@lspmesh/service-kit";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { AdminService } from "./admin/adminService.js";
import { AdminNatsWriter } from "./admin/adminWriter.js";
import { ControlPlaneStore } from "./admin/controlPlaneStore.js";
import { WorkspaceExpiryTimer } from "./admin/workspaceExpiryTimer.js";
import { cachingRunnerClient } from "./answers/cachingRunnerClient.js";
import { GatewayAnswerCache } from "./answers/gatewayAnswerCache.js";
import { natsEpochSource } from "./answers/natsEpochSource.js";
import { WorkspaceEpochs } from "./answers/workspaceEpochs.js";
import { ApiKeyStore } from "./auth/apiKeys.js";
import { type Authenticator, BearerAuthenticator, NoTokenAuthenticator } from "./auth/authenticator.js";
import { JwtVerifier } from "./auth/jwtVerifier.js";
import { GATEWAY_USAGE, type GatewayConfig, gatewayConfig } from "./config.js";
import { startGateway } from "./gateway.js";
import { TenantLimiter } from "./limits/tenantLimiter.js";
import { reloadOnChange } from "./ops/reloadingFile.js";
import { openNatsRunnerRegistry } from "./routing/natsRegistry.js";
import { StaticRunnerDirectory } from "./routing/runnerDirectory.js";
import { HrwRunnerRouter } from "./routing/runnerRouter.js";
import { ControlPlaneTenancy } from "./tenancy/controlPlaneTenancy.js";
import { readTenantsFile, TenantWorkspaceResolver } from "./tenancy/tenants.js";
import { WorkspaceUsageRecorder } from "./tenancy/workspaceUsageRecorder.js";
import { StaticWorkspaceResolver, type WorkspaceResolver } from "./workspaces.js";

/** The control plane followed: its store, and the workspaces' last uses (recorded, and read for idle TTLs). */
interface FollowedControlPlane {
  stop: () => Promise<void>;
  store: ControlPlaneStore;
  usage?: WorkspaceUsageRecorder | undefined;
  usageStore?: WorkspaceUsageStore | undefined;
}

function tenancy(config: GatewayConfig): {
  authenticator: Authenticator;
  workspaces: WorkspaceResolver;
  limiter?: TenantLimiter;
  issuers?: string[];
  /** Starts following the mounted files; returns the stop function. */
  watch?: (logger: Logger) => () => void;
  /** Loads and then follows the control plane; returns the stop function and the bucket, for the admin API. */
  follow?: (logger: Logger) => Promise<FollowedControlPlane>;
} {
  const auth = config.auth;
  if (auth.kind === "control") return controlPlaneTenancy(config, auth.jwt);
  if (auth.kind === "none") {
    return {
      authenticator: new NoTokenAuthenticator({
        tenant: auth.tenant,
        subject: "local",
        scopes: ["lsp:read", "lsp:write"],
      }),
      workspaces: new StaticWorkspaceResolver({ tenant: auth.tenant, workspace: auth.workspace }),
    };
  }
  const resolver = new TenantWorkspaceResolver(readTenantsFile(auth.tenantsFile));
  const apiKeys = auth.apiKeysFile ? ApiKeyStore.fromFile(auth.apiKeysFile) : undefined;
  const jwt = jwtVerifier(auth.jwt);
  return {
    authenticator: new BearerAuthenticator({ apiKeys, jwt }),
    workspaces: resolver,
    limiter: new TenantLimiter((tenant) => resolver.limitsOf(tenant)),
    issuers: auth.jwt ? [auth.jwt.issuer] : undefined,
    // Rotated keys and new workspaces apply without a restart; a bad edit keeps the last good file.
    watch(logger) {
      const follow = (path: string, what: string, load: () => void) =>
        reloadOnChange({
          path,
          load,
          onReloaded: () => logger.info(`${what} reloaded`, { path }),
          onError: (error) =>
            logger.error(`${what} not reloaded; the previous one stays in force`, { error: error.message }),
        });
      const files = [
        follow(auth.tenantsFile, "tenants file", () => resolver.replace(readTenantsFile(auth.tenantsFile))),
      ];
      const keysFile = auth.apiKeysFile;
      if (apiKeys && keysFile) files.push(follow(keysFile, "API keys file", () => apiKeys.reloadFrom(keysFile)));
      return () => {
        for (const file of files) file.close();
      };
    },
  };
}

type JwtSettings = Extract<GatewayConfig["auth"], { kind: "tokens" }>["jwt"];

function jwtVerifier(jwt: JwtSettings): JwtVerifier | undefined {
  return jwt
    ? new JwtVerifier({
        jwks: new URL(jwt.jwksUrl),
        issuer: jwt.issuer,
        audience: jwt.audience,
        tenantClaim: jwt.tenantClaim,
      })
    : undefined;
}

/** Tenants, workspaces and API keys from the NATS control plane, applied as they change. */
function controlPlaneTenancy(config: GatewayConfig, jwt: JwtSettings): ReturnType<typeof tenancy> {
  const control = new ControlPlaneTenancy();
  const nats = config.runners.kind === "nats" ? config.runners : undefined;
  return {
    authenticator: new BearerAuthenticator({ apiKeys: control.apiKeys, jwt: jwtVerifier(jwt) }),
    workspaces: control.resolver,
    limiter: new TenantLimiter((tenant) => control.resolver.limitsOf(tenant)),
    issuers: jwt ? [jwt.issuer] : undefined,
    async follow(logger) {
      if (!nats) throw new Error("the control plane needs LSPMESH_NATS_URL");
      const nc = await connect({
        servers: natsServers(nats.url),
        name: "lspmesh-gateway-control",
        ...natsConnectOptions(nats.auth),
        ...NATS_CONNECTION_OPTIONS,
      });
      let store: ControlPlaneStore;
      try {
        const kvm = new Kvm(nc);
        const replicas = nats.jetstreamReplicas;
        const kv = await createKvBucket(kvm, CONTROL_BUCKET, { history: 5, replicas }).catch(() =>
          kvm.open(CONTROL_BUCKET),
        );
        await control.follow({ watch: () => probedKvWatch(kv, { key: ">" }) }, (message, key) =>
          logger.warn(message, { key }),
        );
        store = await ControlPlaneStore.open(nc, { replicas: nats.jetstreamReplicas });
      } catch (error) {
        await nc.close();
        throw error;
      }
      logger.info("control plane loaded", { tenants: control.tenantCount, keys: control.apiKeys.size });
      // Workspaces' last uses, for idle TTLs; without them (older NATS permissions) TTLs count from `at`.
      const usageStore = await WorkspaceUsageStore.open(nc, { replicas: nats.jetstreamReplicas }).catch(
        (error: unknown) => {
          logger.warn("workspace uses not recorded: idle TTLs count from when a workspace was added", {
            error: errorMessage(error),
          });
          return undefined;
        },
      );
      const usage = usageStore
        ? new WorkspaceUsageRecorder(usageStore, {
            onProblem: (message, error) => logger.warn(message, { error: errorMessage(error) }),
          })
        : undefined;
      const stop = async () => {
        control.close();
        await usage?.close();
        await nc.close();
      };
      return { stop, store, usage, usageStore };
    },
  };
}

/**
 * The admin API: reads through the gateway's own connection; writes through a second one as the
 * NATS admin identity, only when LSPMESH_ADMIN_NATS_CREDS names its creds.
 */
function adminService(config: GatewayConfig, reader: ControlPlaneStore, logger: Logger, auditLogger: Logger) {
  const creds = config.auth.kind === "control" ? config.auth.adminNatsCreds : undefined;
  if (!creds || config.runners.kind !== "nats") {
    logger.info("admin API reads only: set LSPMESH_ADMIN_NATS_CREDS to let it change the control plane");
    return new AdminService({ reader, auditLogger });
  }
  const writer = new AdminNatsWriter({
    servers: config.runners.url,
    auth: { credentials: { kind: "creds", file: creds }, caFile: config.runners.auth.caFile },
    replicas: config.runners.jetstreamReplicas,
  });
  // Connected now, so a wrong setting shows at start; a failure is tried again at the first change.
  writer.open().then(
    () => logger.info("admin API may change the control plane (NATS admin identity connected)"),
    (error: unknown) =>
      logger.warn("admin API cannot change the control plane yet: LSPMESH_ADMIN_NATS_CREDS did not connect", {
        error: errorMessage(error),
      }),
  );
  return new AdminService({ reader, writer, auditLogger });
}

/** Symbol indexes are read from the same NATS the registry is in (docs/architecture.md). */
async function symbolIndexConnection(config: GatewayConfig, logger: Logger): Promise<NatsConnection | undefined> {
  if (config.runners.kind !== "nats") return undefined;
  return connect({
    servers: natsServers(config.runners.url),
    name: "lspmesh-gateway-symbols",
    ...natsConnectOptions(config.runners.auth),
    ...NATS_CONNECTION_OPTIONS,
  }).catch((error: unknown) => {
    logger.warn("symbol indexes not readable; search_symbols asks live servers", { error: errorMessage(error) });
    return undefined;
  });
}

/**
 * Read answers remembered at this gateway, dropped when runners announce their workspaces moved on
 * (`lspmesh.epoch.>`, on a connection of its own so a flush is not queued behind index reads).
 * Only with the NATS registry: static runners announce nothing.
 */
async function answerCache(config: GatewayConfig, logger: Logger): Promise<GatewayAnswerCache | undefined> {
  if (config.runners.kind !== "nats" || config.answerCacheEntries === 0) return undefined;
  const nc = await connect({
    servers: natsServers(config.runners.url),
    name: "lspmesh-gateway-epochs",
    ...natsConnectOptions(config.runners.auth),
    ...NATS_CONNECTION_OPTIONS,
  }).catch((error: unknown) => {
    logger.warn("workspace epochs not followed; answers are not remembered at the gateway", {
      error: errorMessage(error),
    });
    return undefined;
  });
  if (!nc) return undefined;
  const epochs = new WorkspaceEpochs(natsEpochSource(nc, (message, fields) => logger.warn(message, fields)));
  return new GatewayAnswerCache(epochs, config.answerCacheEntries);
}

async function runnerRouter(
  config: GatewayConfig,
  logger: Logger,
  answers: GatewayAnswerCache | undefined,
): Promise<HrwRunnerRouter> {
  const grpcAuth = config.grpcAuth ? GrpcAuth.from(config.grpcAuth) : undefined;
  if (!grpcAuth)
    logger.warn("no runner credentials (LSPMESH_GRPC_SECRET_FILE or mTLS): only loopback runners will answer");
  if (config.runners.kind === "static")
    return new HrwRunnerRouter(new StaticRunnerDirectory(config.runners.addresses), {
      grpcAuth,
      transport: config.runnerTransport,
      workerConnections: config.workerConnections,
    });
  const directory = await openNatsRunnerRegistry({
    servers: config.runners.url,
    auth: config.runners.auth,
    replicas: config.runners.jetstreamReplicas,
    onProblem: (message, key) => logger.warn(message, { key }),
    onOutage: (message, fields) => logger.warn(message, fields),
    grpcAuth,
  });
  return new HrwRunnerRouter(directory, {
    grpcAuth,
    transport: config.runnerTransport,
    workerConnections: config.workerConnections,
    ...(answers ? { decorate: (id, client) => cachingRunnerClient(client, id, answers) } : {}),
  });
}

/** Runs the gateway until SIGINT/SIGTERM. `lspmesh gateway` calls it with its own arguments. */
export async function main(argv: readonly string[], env: Environment): Promise<void> {
  let config: GatewayConfig;
  let setup: ReturnType<typeof tenancy>;
  try {
    config = gatewayConfig(argv, env);
    setup = tenancy(config);
  } catch (error) {
    // Bad settings, or a tenants/keys file that cannot be read: one line and the usage, exit 2.
    const settings = error instanceof SettingsError;
    process.stderr.write(`lspmesh gateway: ${errorMessage(error)}\n${settings ? `\n${GATEWAY_USAGE}\n` : ""}`);
    process.exit(2);
  }
  const logger = createJsonLogger({ service: "gateway", level: config.logLevel });
  let metricsToken: SecretFile | undefined;
  try {
    metricsToken = config.metricsTokenFile
      ? new SecretFile(config.metricsTokenFile, { what: "the metrics token file" })
      : undefined;
  } catch (error) {
    process.stderr.write(`lspmesh gateway: ${errorMessage(error)}\n`);
    process.exit(2);
  }
  // Off unless OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set; started before anything that traces.
  const tracing = await startTracing({ serviceName: "lspmesh-gateway", env, warn: (message) => logger.warn(message) });
  if (tracing.enabled) logger.info("tracing on: spans exported over OTLP");
  const stopWatching = setup.watch?.(logger) ?? (() => {});
  const followed = await setup.follow?.(logger);
  const stopFollowing = followed?.stop ?? (async () => {});
  // Audit lines are written whatever LSPMESH_LOG_LEVEL says.
  const auditLogger = createJsonLogger({ service: "gateway", level: "debug" });
  const answers = await answerCache(config, logger);
  const router = await runnerRouter(config, logger, answers);
  const indexConnection = await symbolIndexConnection(config, logger);
  const admin = followed ? adminService(config, followed.store, logger, auditLogger) : undefined;
  // With the admin identity, this gateway also deletes idle workspaces (idle TTLs).
  const expiry =
    admin?.canWrite && followed?.usageStore
      ? new WorkspaceExpiryTimer(admin, () => followed.usageStore!.lastUses(), logger)
      : undefined;
  const gateway = await startGateway({
    host: config.host,
    port: config.port,
    router,
    workspaces: setup.workspaces,
    authenticator: setup.authenticator,
    limiter: setup.limiter,
    logger,
    auditLogger,
    callTimeoutMs: config.callTimeoutMs,
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
    publicUrl: config.publicUrl,
    authorizationServers: setup.issuers,
    processMetrics: true,
    metricsListen: config.metricsListen,
    ...(metricsToken ? { metricsToken: () => metricsToken.value() } : {}),
    metricsTenantLabels: config.metricsTenantLabels,
    maxConnections: config.maxConnections,
    unauthenticatedPerSecond: config.unauthenticatedPerSecond,
    symbolIndex: indexConnection ? new NatsSymbolIndexStore(indexConnection) : undefined,
    ...(admin ? { admin } : {}),
    ...(followed?.usage ? { workspaceUsage: followed.usage } : {}),
    ...(answers ? { answerCache: answers } : {}),
  }).catch(async (error: unknown) => {
    await expiry?.close();
    await router.close();
    await answers?.close();
    await indexConnection?.close();
    throw error;
  });
  logger.info("gateway listening", {
    url: gateway.url,
    runners: config.runners.kind === "static" ? config.runners.addresses.join(",") : config.runners.url,
    auth: config.auth.kind,
    ...(gateway.metricsAddress ? { metrics: `http://${gateway.metricsAddress}/metrics` } : {}),
  });

  closeOnSignals(
    async () => {
      stopWatching();
      await expiry?.close();
      await stopFollowing();
      await gateway.close();
      await answers?.close();
      await indexConnection?.close();
      await tracing.close();
    },
    { log: (message, fields) => logger.info(message, fields) },
  );
}

// Run directly (node dist/main.js): the process arguments and environment.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), process.env).catch((error: unknown) => {
    process.stderr.write(`lspmesh gateway: ${errorMessage(error)}\n`);
    process.exit(1);
  });
}
