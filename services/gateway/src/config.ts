// Standalone configuration from LSPMESH_* environment variables and command-line flags (flags
// win). Pure: main.ts hands in process.env and process.argv.

import { NatsAuthError, type NatsClientAuth, natsClientAuth } from "@lspmesh/events";
import { GrpcAuthError, type GrpcAuthSettings, grpcAuthSettings } from "@lspmesh/grpc";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_GATEWAY_PORT,
  DEFAULT_WORKSPACE,
  ID_PATTERN,
  LOCAL_TENANT,
} from "@lspmesh/proto";
import {
  type Environment,
  integerSetting,
  isLoopbackHost,
  LOG_LEVELS,
  type LogLevel,
  listSetting,
  parseFlags,
  SettingsError,
  setting as settingOf,
} from "@lspmesh/service-kit";

export type RunnerSource =
  | { kind: "static"; addresses: string[] }
  | { kind: "nats"; url: string; auth: NatsClientAuth };

export type AuthConfig =
  /** Loopback single-machine mode: no tokens; every caller is this tenant with this one workspace. */
  | { kind: "none"; tenant: string; workspace: string }
  | {
      kind: "tokens";
      apiKeysFile?: string | undefined;
      jwt?: { jwksUrl: string; issuer: string; audience: string; tenantClaim: string } | undefined;
      tenantsFile: string;
    };

export interface GatewayConfig {
  runners: RunnerSource;
  /** Credentials for runner calls (shared secret file, mTLS files); unset = none. */
  grpcAuth?: GrpcAuthSettings;
  auth: AuthConfig;
  host: string;
  port: number;
  callTimeoutMs: number;
  allowedHosts: string[] | undefined;
  allowedOrigins: string[] | undefined;
  publicUrl: string | undefined;
  logLevel: LogLevel;
  /** host:port of the separate /metrics listener; unset = none. */
  metricsListen: string | undefined;
  /** File holding the token /metrics on the main port asks for (token mode); unset = 404 there. */
  metricsTokenFile: string | undefined;
  /** Tenant ids as metric labels (LSPMESH_METRICS_TENANT_LABELS, default on). */
  metricsTenantLabels: boolean;
  /** Most open HTTP connections. */
  maxConnections: number;
  /** Requests without a valid token per second and client address. */
  unauthenticatedPerSecond: number;
}

/** Defaults: single-machine mode on loopback (docs/operations.md). */
const DEFAULTS = {
  host: "127.0.0.1",
  port: DEFAULT_GATEWAY_PORT,
  tenant: LOCAL_TENANT,
  workspace: DEFAULT_WORKSPACE,
} as const;

export const GATEWAY_USAGE = `usage: lspmesh gateway [options]   (flags override the LSPMESH_* variable named after each)
runners (one of):
  --runners H:P[,H:P…]   LSPMESH_RUNNERS            a static list of runner gRPC addresses
  --nats URL             LSPMESH_NATS_URL           the NATS registry (KV bucket lspmesh-runners)
                         LSPMESH_NATS_USER + LSPMESH_NATS_PASSWORD, LSPMESH_NATS_TOKEN or LSPMESH_NATS_CREDS,
                         LSPMESH_NATS_CA (NATS credentials and TLS CA)
runner credentials (the runners' own):
                         LSPMESH_GRPC_SECRET_FILE   shared secret sent on every call, and/or
                         LSPMESH_GRPC_TLS_CERT, LSPMESH_GRPC_TLS_KEY, LSPMESH_GRPC_TLS_CA (mTLS)
authentication (required unless bound to loopback):
  --api-keys FILE        LSPMESH_API_KEYS_FILE      static API keys, stored as SHA-256 hashes
  --jwks-url URL         LSPMESH_JWKS_URL           JWTs verified against this JWKS, with
  --jwt-issuer ISS       LSPMESH_JWT_ISSUER           issuer and
  --jwt-audience AUD     LSPMESH_JWT_AUDIENCE         audience checks (both required with a JWKS)
                         LSPMESH_JWT_TENANT_CLAIM     claim naming the tenant (default "tenant")
  --tenants FILE         LSPMESH_TENANTS_FILE       tenants, their workspaces and limits (required with tokens)
loopback single-machine mode (no tokens):
  --tenant ID            LSPMESH_TENANT (${DEFAULTS.tenant})  --workspace ID  LSPMESH_WORKSPACE (${DEFAULTS.workspace})
serving:
  --host H               LSPMESH_HOST (${DEFAULTS.host})     --port N  LSPMESH_PORT (${DEFAULTS.port})
  --public-url URL       LSPMESH_PUBLIC_URL         base URL clients use (for the resource metadata)
                         LSPMESH_CALL_TIMEOUT_MS (${DEFAULT_CALL_TIMEOUT_MS})  LSPMESH_LOG_LEVEL (info)
                         LSPMESH_ALLOWED_HOSTS, LSPMESH_ALLOWED_ORIGINS (comma-separated hostnames)
  --metrics-listen H:P   LSPMESH_METRICS_LISTEN     a separate listener for GET /metrics (e.g. 0.0.0.0:9464)
                         LSPMESH_METRICS_TOKEN_FILE  bearer token for /metrics on the main port (token mode)
                         LSPMESH_METRICS_TENANT_LABELS (1; 0 = "-" instead of tenant ids)
                         LSPMESH_MAX_CONNECTIONS (1024)  LSPMESH_UNAUTHENTICATED_RPS (10 per client address)
See docs/gateway.md.`;

/** Throws a SettingsError whose message says which setting is wrong and how to fix it. */
export function gatewayConfig(argv: readonly string[], env: Environment): GatewayConfig {
  const { values: flags } = parseFlags({
    args: [...argv],
    options: {
      runners: { type: "string" },
      runner: { type: "string" },
      nats: { type: "string" },
      "api-keys": { type: "string" },
      "jwks-url": { type: "string" },
      "jwt-issuer": { type: "string" },
      "jwt-audience": { type: "string" },
      tenants: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      "public-url": { type: "string" },
      "metrics-listen": { type: "string" },
      tenant: { type: "string" },
      workspace: { type: "string" },
    },
    strict: true,
  });
  const setting = (flag: string | undefined, name: string) => settingOf(flag, env, name);

  let grpcAuth: GrpcAuthSettings | undefined;
  let natsAuth: NatsClientAuth;
  try {
    grpcAuth = grpcAuthSettings((name) => settingOf(undefined, env, name));
    natsAuth = natsClientAuth((name) => settingOf(undefined, env, name));
  } catch (error) {
    throw error instanceof GrpcAuthError || error instanceof NatsAuthError ? new SettingsError(error.message) : error;
  }

  // Runners: a static list or the NATS registry.
  const runnerList = listSetting(
    setting(flags.runners ?? flags.runner, "LSPMESH_RUNNERS") ?? env.LSPMESH_RUNNER_ADDRESS,
  );
  const natsUrl = setting(flags.nats, "LSPMESH_NATS_URL");
  if (runnerList && natsUrl)
    throw new SettingsError("give either LSPMESH_RUNNERS (--runners) or LSPMESH_NATS_URL (--nats), not both");
  if (!runnerList && !natsUrl)
    throw new SettingsError(
      "no runners: set LSPMESH_NATS_URL (--nats) for the registry, or LSPMESH_RUNNERS (--runners) to host:port[,host:port]",
    );
  for (const address of runnerList ?? []) {
    if (!/^[^\s,]+:\d{1,5}$/.test(address))
      throw new SettingsError(`invalid runner address '${address}': use host:port`);
  }
  const runners: RunnerSource = runnerList
    ? { kind: "static", addresses: runnerList }
    : { kind: "nats", url: natsUrl!, auth: natsAuth };

  const host = setting(flags.host, "LSPMESH_HOST") ?? DEFAULTS.host;

  // Authentication: tokens, or none on loopback.
  const apiKeysFile = setting(flags["api-keys"], "LSPMESH_API_KEYS_FILE");
  const jwksUrl = setting(flags["jwks-url"], "LSPMESH_JWKS_URL");
  const issuer = setting(flags["jwt-issuer"], "LSPMESH_JWT_ISSUER");
  const audience = setting(flags["jwt-audience"], "LSPMESH_JWT_AUDIENCE");
  let auth: AuthConfig;
  if (apiKeysFile || jwksUrl) {
    if (jwksUrl) {
      if (!issuer || !audience)
        throw new SettingsError(
          "JWT verification needs LSPMESH_JWT_ISSUER and LSPMESH_JWT_AUDIENCE next to LSPMESH_JWKS_URL",
        );
      try {
        new URL(jwksUrl);
      } catch {
        throw new SettingsError(`invalid LSPMESH_JWKS_URL '${jwksUrl}': give an https:// URL`);
      }
    }
    const tenantsFile = setting(flags.tenants, "LSPMESH_TENANTS_FILE");
    if (!tenantsFile)
      throw new SettingsError(
        "token authentication needs LSPMESH_TENANTS_FILE (--tenants): which workspaces each tenant has",
      );
    auth = {
      kind: "tokens",
      apiKeysFile,
      jwt: jwksUrl
        ? {
            jwksUrl,
            issuer: issuer!,
            audience: audience!,
            tenantClaim: settingOf(undefined, env, "LSPMESH_JWT_TENANT_CLAIM") ?? "tenant",
          }
        : undefined,
      tenantsFile,
    };
  } else {
    if (!isLoopbackHost(host))
      throw new SettingsError(
        `refusing to serve ${host} without tokens: set LSPMESH_API_KEYS_FILE or LSPMESH_JWKS_URL, or bind to 127.0.0.1`,
      );
    const tenant = setting(flags.tenant, "LSPMESH_TENANT") ?? DEFAULTS.tenant;
    const workspace = setting(flags.workspace, "LSPMESH_WORKSPACE") ?? DEFAULTS.workspace;
    for (const [name, id] of [
      ["tenant", tenant],
      ["workspace", workspace],
    ]) {
      if (!ID_PATTERN.test(id ?? ""))
        throw new SettingsError(`invalid ${name} '${id}': use lowercase letters, digits, '_' or '-'`);
    }
    auth = { kind: "none", tenant, workspace };
  }

  const logLevel = (settingOf(undefined, env, "LSPMESH_LOG_LEVEL") ?? "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw new SettingsError(`invalid LSPMESH_LOG_LEVEL '${logLevel}': use ${LOG_LEVELS.join(", ")}`);
  const publicUrl = setting(flags["public-url"], "LSPMESH_PUBLIC_URL");
  if (publicUrl && !/^https?:\/\/[^/]+/.test(publicUrl))
    throw new SettingsError(
      `invalid LSPMESH_PUBLIC_URL '${publicUrl}': give the base URL, e.g. https://lspmesh.example.com`,
    );

  if (auth.kind === "tokens" && !publicUrl && !isLoopbackHost(host))
    throw new SettingsError(
      `set LSPMESH_PUBLIC_URL (--public-url) to the URL clients use, e.g. https://lspmesh.example.com: a gateway on ${host} must not name its resource after whatever Host header a request brings`,
    );
  const metricsListen = setting(flags["metrics-listen"], "LSPMESH_METRICS_LISTEN");
  if (metricsListen !== undefined && !/^[^\s]*:\d{1,5}$/.test(metricsListen))
    throw new SettingsError(`invalid metrics address '${metricsListen}': use host:port`);
  const tenantLabels = settingOf(undefined, env, "LSPMESH_METRICS_TENANT_LABELS") ?? "1";
  if (tenantLabels !== "0" && tenantLabels !== "1")
    throw new SettingsError(`invalid LSPMESH_METRICS_TENANT_LABELS '${tenantLabels}': use 1 or 0`);

  return {
    runners,
    ...(grpcAuth ? { grpcAuth } : {}),
    auth,
    host,
    port: integerSetting(setting(flags.port, "LSPMESH_PORT"), "port (LSPMESH_PORT)", DEFAULTS.port, 0, 65_535),
    callTimeoutMs: integerSetting(
      env.LSPMESH_CALL_TIMEOUT_MS,
      "LSPMESH_CALL_TIMEOUT_MS",
      DEFAULT_CALL_TIMEOUT_MS,
      1,
      600_000,
    ),
    allowedHosts: listSetting(env.LSPMESH_ALLOWED_HOSTS),
    allowedOrigins: listSetting(env.LSPMESH_ALLOWED_ORIGINS),
    publicUrl,
    logLevel,
    metricsListen,
    metricsTokenFile: settingOf(undefined, env, "LSPMESH_METRICS_TOKEN_FILE"),
    metricsTenantLabels: tenantLabels === "1",
    maxConnections: integerSetting(env.LSPMESH_MAX_CONNECTIONS, "LSPMESH_MAX_CONNECTIONS", 1024, 1, 1_000_000),
    unauthenticatedPerSecond: integerSetting(
      env.LSPMESH_UNAUTHENTICATED_RPS,
      "LSPMESH_UNAUTHENTICATED_RPS",
      10,
      1,
      1_000_000,
    ),
  };
}
