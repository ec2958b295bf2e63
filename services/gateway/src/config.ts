// Standalone configuration from LSPMESH_* environment variables and command-line flags (flags
// win). Pure: main.ts hands in process.env and process.argv.

import {
  JETSTREAM_REPLICAS_SETTING,
  MAX_JETSTREAM_REPLICAS,
  NatsAuthError,
  type NatsClientAuth,
  natsClientAuth,
} from "@lspmesh/events";
import { GrpcAuthError, type GrpcAuthSettings, grpcAuthSettings } from "@lspmesh/grpc";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_GATEWAY_PORT,
  DEFAULT_WORKSPACE,
  ID_PATTERN,
  LOCAL_TENANT,
} from "@lspmesh/proto";
import {
  credentialSetting,
  type Environment,
  integerSetting,
  isLoopbackHost,
  type LogLevel,
  listSetting,
  logLevelSetting,
  metricsListenSetting,
  parseFlags,
  SettingsError,
  setting,
} from "@lspmesh/service-kit";
import { DEFAULT_GATEWAY_ANSWERS } from "./answers/gatewayAnswerCache.js";

export type RunnerSource =
  | { kind: "static"; addresses: string[] }
  | {
      kind: "nats";
      /** One URL or a cluster's, comma-separated. */
      url: string;
      auth: NatsClientAuth;
      /** Copies JetStream keeps of the buckets the gateway creates (LSPMESH_JETSTREAM_REPLICAS, 1). */
      jetstreamReplicas: number;
    };

export type AuthConfig =
  /** Loopback single-machine mode: no tokens; every caller is this tenant with this one workspace. */
  | { kind: "none"; tenant: string; workspace: string }
  | {
      kind: "tokens";
      apiKeysFile?: string | undefined;
      jwt?: { jwksUrl: string; issuer: string; audience: string; tenantClaim: string } | undefined;
      tenantsFile: string;
    }
  /** Tenants, workspaces and API-key hashes followed live from the control-plane bucket in NATS. */
  | {
      kind: "control";
      jwt?: { jwksUrl: string; issuer: string; audience: string; tenantClaim: string } | undefined;
      /**
       * Creds file of the NATS admin identity, which the admin API writes the bucket as; unset = the
       * API only reads (the gateway's own identity reads the bucket and may not write it).
       */
      adminNatsCreds?: string | undefined;
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
  /** Read answers remembered at the gateway (LSPMESH_GATEWAY_ANSWER_CACHE; 0 = off; NATS runners only). */
  answerCacheEntries: number;
  /** Runner calls on one stream per runner, or one gRPC call each (LSPMESH_RUNNER_TRANSPORT). */
  runnerTransport: RunnerTransport;
  /** Tenants' calls straight to their workers on runners that offer it (LSPMESH_WORKER_CONNECTIONS, default on). */
  workerConnections: boolean;
}

/** How runner calls travel: many on one stream per runner (RunnerCalls), or one unary gRPC call each. */
export type RunnerTransport = "stream" | "unary";

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
                         LSPMESH_NATS_CA (NATS credentials and TLS CA); a cluster: its URLs, comma-separated
                         LSPMESH_JETSTREAM_REPLICAS (1; 3 with a 3-node NATS) copies of the buckets it creates
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
  --control nats         LSPMESH_CONTROL (files)    instead: tenants, workspaces and API keys from the
                                                    NATS control plane (lspmesh admin), applied live
                         LSPMESH_ADMIN_NATS_CREDS   with it: the NATS admin identity's creds file, so the
                                                    admin API (/admin/v1) may change the control plane
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
                         LSPMESH_GATEWAY_ANSWER_CACHE (${DEFAULT_GATEWAY_ANSWERS}; 0 = off) read answers remembered
                                                    here, dropped on the runners' epochs (NATS runners only)
                         LSPMESH_RUNNER_TRANSPORT (stream = each runner's calls on one stream; unary)
                         LSPMESH_WORKER_CONNECTIONS (on = straight to each tenant's worker on runners
                                                    with LSPMESH_WORKER_LISTEN; off = always relayed)
See docs/gateway.md.`;

/** The gateway's flags; each overrides the LSPMESH_* variable GATEWAY_USAGE names next to it. */
const GATEWAY_FLAGS = {
  runners: { type: "string" },
  runner: { type: "string" },
  nats: { type: "string" },
  "api-keys": { type: "string" },
  "jwks-url": { type: "string" },
  "jwt-issuer": { type: "string" },
  "jwt-audience": { type: "string" },
  tenants: { type: "string" },
  control: { type: "string" },
  host: { type: "string" },
  port: { type: "string" },
  "public-url": { type: "string" },
  "metrics-listen": { type: "string" },
  tenant: { type: "string" },
  workspace: { type: "string" },
} as const;

type GatewayFlags = { readonly [name in keyof typeof GATEWAY_FLAGS]?: string | undefined };

/** Throws a SettingsError whose message says which setting is wrong and how to fix it. */
export function gatewayConfig(argv: readonly string[], env: Environment): GatewayConfig {
  const { values: flags } = parseFlags({ args: [...argv], options: GATEWAY_FLAGS, strict: true });
  const grpcAuth = credentialSetting(env, grpcAuthSettings, GrpcAuthError);
  const natsAuth = credentialSetting(env, natsClientAuth, NatsAuthError);
  const runners = runnerSource(flags, env, natsAuth);
  const host = setting(flags.host, env, "LSPMESH_HOST") ?? DEFAULTS.host;
  const auth = authConfig(flags, env, host, runners);
  const logLevel = logLevelSetting(env);
  const publicUrl = publicUrlSetting(flags, env, auth, host);
  const metricsListen = metricsListenSetting(flags["metrics-listen"], env);
  const tenantLabels = setting(undefined, env, "LSPMESH_METRICS_TENANT_LABELS") ?? "1";
  if (tenantLabels !== "0" && tenantLabels !== "1")
    throw new SettingsError(`invalid LSPMESH_METRICS_TENANT_LABELS '${tenantLabels}': use 1 or 0`);
  return {
    runners,
    ...(grpcAuth ? { grpcAuth } : {}),
    auth,
    host,
    port: integerSetting(setting(flags.port, env, "LSPMESH_PORT"), "port (LSPMESH_PORT)", DEFAULTS.port, 0, 65_535),
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
    metricsTokenFile: setting(undefined, env, "LSPMESH_METRICS_TOKEN_FILE"),
    metricsTenantLabels: tenantLabels === "1",
    ...connectionLimits(env),
    answerCacheEntries: integerSetting(
      env.LSPMESH_GATEWAY_ANSWER_CACHE,
      "LSPMESH_GATEWAY_ANSWER_CACHE",
      DEFAULT_GATEWAY_ANSWERS,
      0,
      1_000_000,
    ),
    runnerTransport: runnerTransportSetting(env.LSPMESH_RUNNER_TRANSPORT),
    workerConnections: workerConnectionsSetting(env.LSPMESH_WORKER_CONNECTIONS),
  };
}

function workerConnectionsSetting(value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "on") return true;
  if (value === "off") return false;
  throw new SettingsError(`invalid LSPMESH_WORKER_CONNECTIONS '${value}': use on or off`);
}

function runnerTransportSetting(value: string | undefined): RunnerTransport {
  // Streams by default: about half the CPU per call on both sides (docs/performance.md).
  if (value === undefined || value === "" || value === "stream") return "stream";
  if (value === "unary") return "unary";
  throw new SettingsError(`invalid LSPMESH_RUNNER_TRANSPORT '${value}': use stream or unary`);
}

/** Runners: a static list (--runners, or the older LSPMESH_RUNNER_ADDRESS) or the NATS registry. */
function runnerSource(flags: GatewayFlags, env: Environment, natsAuth: NatsClientAuth): RunnerSource {
  const runnerList = listSetting(
    setting(flags.runners ?? flags.runner, env, "LSPMESH_RUNNERS") ?? env.LSPMESH_RUNNER_ADDRESS,
  );
  const natsUrl = setting(flags.nats, env, "LSPMESH_NATS_URL");
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
  if (runnerList) return { kind: "static", addresses: runnerList };
  const replicas = integerSetting(
    env[JETSTREAM_REPLICAS_SETTING],
    JETSTREAM_REPLICAS_SETTING,
    1,
    1,
    MAX_JETSTREAM_REPLICAS,
  );
  return { kind: "nats", url: natsUrl!, auth: natsAuth, jetstreamReplicas: replicas };
}

/** Tokens when API keys or a JWKS are set; otherwise no tokens, which only a loopback host may serve. */
function authConfig(flags: GatewayFlags, env: Environment, host: string, runners: RunnerSource): AuthConfig {
  const apiKeysFile = setting(flags["api-keys"], env, "LSPMESH_API_KEYS_FILE");
  const jwksUrl = setting(flags["jwks-url"], env, "LSPMESH_JWKS_URL");
  const control = setting(flags.control, env, "LSPMESH_CONTROL") ?? "files";
  if (control !== "files" && control !== "nats")
    throw new SettingsError(`LSPMESH_CONTROL (--control) must be files or nats (got '${control}')`);
  const adminNatsCreds = setting(undefined, env, "LSPMESH_ADMIN_NATS_CREDS");
  if (adminNatsCreds && control !== "nats")
    throw new SettingsError(
      "LSPMESH_ADMIN_NATS_CREDS is for the admin API, which changes the NATS control plane: set LSPMESH_CONTROL=nats too, or unset it",
    );
  if (control === "nats") {
    if (runners.kind !== "nats")
      throw new SettingsError(
        "LSPMESH_CONTROL=nats needs LSPMESH_NATS_URL (--nats): the control plane is a bucket there",
      );
    if (apiKeysFile || setting(flags.tenants, env, "LSPMESH_TENANTS_FILE"))
      throw new SettingsError(
        "LSPMESH_CONTROL=nats takes tenants and API keys from NATS: unset LSPMESH_TENANTS_FILE and LSPMESH_API_KEYS_FILE (load them once with lspmesh admin apply -f)",
      );
    return { kind: "control", jwt: jwksUrl ? jwtConfig(flags, env, jwksUrl) : undefined, adminNatsCreds };
  }
  if (apiKeysFile || jwksUrl) {
    const jwt = jwksUrl ? jwtConfig(flags, env, jwksUrl) : undefined;
    const tenantsFile = setting(flags.tenants, env, "LSPMESH_TENANTS_FILE");
    if (!tenantsFile)
      throw new SettingsError(
        "token authentication needs LSPMESH_TENANTS_FILE (--tenants): which workspaces each tenant has",
      );
    return { kind: "tokens", apiKeysFile, jwt, tenantsFile };
  }
  if (!isLoopbackHost(host))
    throw new SettingsError(
      `refusing to serve ${host} without tokens: set LSPMESH_API_KEYS_FILE or LSPMESH_JWKS_URL, or bind to 127.0.0.1`,
    );
  const tenant = setting(flags.tenant, env, "LSPMESH_TENANT") ?? DEFAULTS.tenant;
  const workspace = setting(flags.workspace, env, "LSPMESH_WORKSPACE") ?? DEFAULTS.workspace;
  for (const [name, id] of [
    ["tenant", tenant],
    ["workspace", workspace],
  ]) {
    if (!ID_PATTERN.test(id ?? ""))
      throw new SettingsError(`invalid ${name} '${id}': use lowercase letters, digits, '_' or '-'`);
  }
  return { kind: "none", tenant, workspace };
}

/** JWT verification: the JWKS needs an issuer and an audience to check as well. */
function jwtConfig(flags: GatewayFlags, env: Environment, jwksUrl: string) {
  const issuer = setting(flags["jwt-issuer"], env, "LSPMESH_JWT_ISSUER");
  const audience = setting(flags["jwt-audience"], env, "LSPMESH_JWT_AUDIENCE");
  if (!issuer || !audience)
    throw new SettingsError(
      "JWT verification needs LSPMESH_JWT_ISSUER and LSPMESH_JWT_AUDIENCE next to LSPMESH_JWKS_URL",
    );
  try {
    new URL(jwksUrl);
  } catch {
    throw new SettingsError(`invalid LSPMESH_JWKS_URL '${jwksUrl}': give an https:// URL`);
  }
  return { jwksUrl, issuer, audience, tenantClaim: setting(undefined, env, "LSPMESH_JWT_TENANT_CLAIM") ?? "tenant" };
}

/**
 * The base URL clients use. Required for tokens off loopback: the resource metadata must not be
 * named after whatever Host header a request brings.
 */
function publicUrlSetting(flags: GatewayFlags, env: Environment, auth: AuthConfig, host: string): string | undefined {
  const publicUrl = setting(flags["public-url"], env, "LSPMESH_PUBLIC_URL");
  if (publicUrl && !/^https?:\/\/[^/]+/.test(publicUrl))
    throw new SettingsError(
      `invalid LSPMESH_PUBLIC_URL '${publicUrl}': give the base URL, e.g. https://lspmesh.example.com`,
    );
  if (auth.kind !== "none" && !publicUrl && !isLoopbackHost(host))
    throw new SettingsError(
      `set LSPMESH_PUBLIC_URL (--public-url) to the URL clients use, e.g. https://lspmesh.example.com: a gateway on ${host} must not name its resource after whatever Host header a request brings`,
    );
  return publicUrl;
}

/** Open HTTP connections (default 1 024) and requests per second without a valid token per client address (default 10). */
function connectionLimits(env: Environment): Pick<GatewayConfig, "maxConnections" | "unauthenticatedPerSecond"> {
  return {
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
