// The runner's settings from its command line and LSPMESH_* environment: a pure function, so
// `lspmesh runner`, `node dist/main.js` and tests read them the same way. Flags win over variables.

import { readFileSync } from "node:fs";
import {
  JETSTREAM_REPLICAS_SETTING,
  MAX_JETSTREAM_REPLICAS,
  NatsAuthError,
  type NatsClientAuth,
  natsClientAuth,
  natsCredsIdentity,
} from "@lspmesh/events";
import { GrpcAuthError, type GrpcAuthSettings, grpcAuthSettings } from "@lspmesh/grpc";
import { DEFAULT_RUNNER_PORT, ID_PATTERN, ID_RULE } from "@lspmesh/proto";
import {
  choiceSetting,
  credentialSetting,
  type Environment,
  hostPortSetting,
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
import { answerWarmingSetting } from "./engine/answerWarming.js";
import { defaultHandoffMs } from "./handoff/handoffPlan.js";
import { defaultRunnerId } from "./runnerEndpoint.js";
import { parseWarmUpList, type WarmUpEntry } from "./sessionWarmUp.js";

/** Where the runner finds workspaces: a volume of `<tenant>/<workspace>` folders, or one folder. */
export type WorkspacesSetting =
  | { readonly root: string }
  | { readonly dir: string; readonly tenant: string; readonly workspace: string };

export interface RunnerConfig {
  /** host:port for gRPC; port 0 picks a free one. Loopback unless credentials are set. */
  listen: string;
  /** How gateways authenticate (shared secret file, mTLS files); unset = loopback only. */
  grpcAuth?: GrpcAuthSettings;
  /**
   * host:port where gateways connect straight to a tenant's worker (LSPMESH_WORKER_LISTEN; tenant
   * workers only, not with mTLS); unset = every call relayed by the runner.
   */
  workerListen?: string;
  workspaces: WorkspacesSetting;
  /** JSON file overriding or adding language servers (docs/languages.md); unset = built-ins only. */
  languagesFile?: string;
  /** Largest file sent to a language server, in bytes (default 4 MiB, in the session manager). */
  maxFileBytes?: number;
  /** NATS server(s), comma-separated; unset = in-process events, no registry. */
  natsUrl?: string;
  /** NATS credentials and TLS CA (LSPMESH_NATS_*). */
  natsAuth: NatsClientAuth;
  /** Copies JetStream keeps of the stream and buckets this runner creates (LSPMESH_JETSTREAM_REPLICAS, 1). */
  jetstreamReplicas: number;
  /** Registry key (default `<hostname>-<pid>`). */
  runnerId?: string;
  /** host:port gateways dial (default: the bound address; the host name for wildcard binds). */
  advertiseAddress?: string;
  /** Runner pool in the registry (default "default"). */
  pool?: string;
  /** Tenant allowlist of a dedicated pool; unset = any tenant. */
  tenants?: string[];
  /** Registry heartbeat, ms (default 5 000). */
  heartbeatMs?: number;
  /** inotify watching (off on network volumes, where writers announce changes on NATS). */
  watchWorkspaces: boolean;
  /** host:port for Prometheus GET /metrics; unset = off. */
  metricsListen?: string;
  /** How long a drain on SIGTERM may take, ms: the handoff, then in-flight requests. */
  drainMs: number;
  /**
   * Longest handoff wait, ms (docs/architecture.md, "Handoff"): in a drain for the successors to
   * hold this runner's sessions warm, at start for this runner to warm what it will own. 0 = off.
   */
  handoffMs: number;
  /** Resident memory all language servers may use together, bytes; unset = 75 % of the container limit. */
  serverMemoryBytes?: number;
  /** A session unused this long is stopped, ms (0 = never; unset = the policy default, 30 min). */
  idleTimeoutMs?: number;
  /** Sessions started at once instead of on first use. */
  warmUp: WarmUpEntry[];
  /**
   * Language servers in a bubblewrap sandbox: "auto" wherever it works (else none, one tenant at
   * a time), "bwrap" required (the runner does not start without it), "none" never.
   */
  sandbox?: SandboxSetting;
  /**
   * Tenant workers for a volume root: "auto" (default) one confined worker process per tenant
   * (Landlock, with bubblewrap around it where that works too); "off" every tenant's sessions in
   * the runner process itself (only for tenants that trust each other: LSPMESH_TENANTS).
   */
  workers?: WorkersSetting;
  /** Where workers keep their private home and temporary folders (default: a fresh temporary folder per runner). */
  stateDir?: string;
  /** The user workers run as when the runner runs as root ("uid:gid"); unset: the runner's own. */
  workerUser?: { uid: number; gid: number };
  /** Fair shares: language servers, processes and memory (bytes) one tenant may hold on this runner. */
  tenantLimits?: { sessions?: number; processes?: number; memoryBytes?: number; watches?: number };
  logLevel: LogLevel;
  /** Read-only answers remembered per language session (default 2 000); 0 = none remembered or shared. */
  answerCacheEntries?: number;
  /** Questions per language session asked again after documents were opened (default 256); 0 = off. */
  answerWarming: number;
  /** Write tools may change files under `.git/` (default false: a `.git/config` can name programs git runs). */
  allowGitWrites?: boolean;
  /** The symbol index (docs/architecture.md): on unless switched off; limits unset = defaults. */
  symbolIndex: {
    enabled: boolean;
    maxFiles?: number;
    maxSymbolsPerFile?: number;
    /** Bytes one tenant's bucket may hold in JetStream. */
    maxBytesPerTenant?: number;
  };
}

export type SandboxSetting = "auto" | "bwrap" | "none";
export type WorkersSetting = "auto" | "off";
const WORKERS_SETTINGS: readonly WorkersSetting[] = ["auto", "off"];
const SANDBOX_SETTINGS: readonly SandboxSetting[] = ["auto", "bwrap", "none"];

/**
 * Default drain time on SIGTERM, ms: the handoff (15 s) and then the whole call deadline (30 s,
 * DEFAULT_CALL_TIMEOUT_MS) for the calls still in flight.
 */
export const DEFAULT_DRAIN_MS = 45_000;

export const RUNNER_USAGE = `usage: lspmesh runner [--listen HOST:PORT] [--workspaces-root DIR] [--languages FILE] [--nats URL]

Flags override the environment:
  --listen HOST:PORT       LSPMESH_LISTEN (127.0.0.1:${DEFAULT_RUNNER_PORT}; another address needs credentials:)
                           LSPMESH_GRPC_SECRET_FILE (shared secret) and/or
                           LSPMESH_GRPC_TLS_CERT, LSPMESH_GRPC_TLS_KEY, LSPMESH_GRPC_TLS_CA (mTLS)
  --workspaces-root DIR    LSPMESH_WORKSPACES_ROOT (/workspaces): holds <tenant>/<workspace> folders
  --languages FILE         LSPMESH_LANGUAGES_FILE: JSON overriding or adding language servers (docs/languages.md)
  --nats URL               LSPMESH_NATS_URL: NATS server(s); unset = no registry, no published diagnostics
                           credentials: LSPMESH_NATS_USER + LSPMESH_NATS_PASSWORD, LSPMESH_NATS_TOKEN or
                           LSPMESH_NATS_CREDS (file); LSPMESH_NATS_CA: CA bundle for TLS
                           LSPMESH_JETSTREAM_REPLICAS (1; 3 with a 3-node NATS): copies of what it creates
  --metrics-listen H:P     LSPMESH_METRICS_LISTEN: Prometheus GET /metrics (e.g. 0.0.0.0:9464); unset = off
Environment only:
  LSPMESH_MAX_FILE_BYTES (4 MiB)  LSPMESH_RUNNER_ID (<hostname>-<pid>)  LSPMESH_ADVERTISE_ADDRESS
  LSPMESH_POOL (default)  LSPMESH_TENANTS (any)  LSPMESH_HEARTBEAT_MS (5000)  LSPMESH_WATCH (1; 0 = off)
  LSPMESH_DRAIN_MS (${DEFAULT_DRAIN_MS})  LSPMESH_HANDOFF (1; 0 = off)  LSPMESH_HANDOFF_MS (drain − 30000)
  LSPMESH_SERVER_MEMORY_MB (75 % of the container limit)
  LSPMESH_SANDBOX (auto: bubblewrap where it works; bwrap: required; none)
  LSPMESH_WORKERS (auto: one Landlock-confined worker process per tenant; off: tenants in LSPMESH_TENANTS share the runner)
  LSPMESH_STATE_DIR (a fresh <tmpdir>/lspmesh-workers-<pid>-* per runner, removed at exit: the workers' homes and temporary folders)
  LSPMESH_WORKER_USER (uid:gid workers run as when the runner runs as root; unset: the runner's own)
  LSPMESH_WORKER_LISTEN (host:port: gateways connect straight to each tenant's worker; not with mTLS; unset: calls relayed)
  LSPMESH_TENANT_MAX_SESSIONS (12)  LSPMESH_TENANT_MAX_PROCESSES (96)  LSPMESH_TENANT_MEMORY_MB (none)
  LSPMESH_TENANT_MAX_WATCHES (an eighth of fs.inotify.max_user_watches, 1024–20000; past it folders are polled); 0 = no limit
  LSPMESH_IDLE_TIMEOUT_S (1800; 0 = never)  LSPMESH_WARMUP (tenant/workspace/language,…)  LSPMESH_LOG_LEVEL (info)
  LSPMESH_SYMBOL_INDEX (1; 0 = off)  LSPMESH_INDEX_MAX_FILES (50000)  LSPMESH_INDEX_MAX_SYMBOLS_PER_FILE (5000)
  LSPMESH_INDEX_MAX_BYTES (268435456 per tenant; -1 = no limit)
  LSPMESH_ANSWER_CACHE (2000 answers remembered per language server; 0 = off: no remembering or sharing)
  LSPMESH_ANSWER_WARMING (256 questions per language server asked again after documents were opened; 0/off = off)
  LSPMESH_ALLOW_GIT_WRITES (0; 1 = write tools may change files under .git/)
See docs/operations.md.`;

/** LSPMESH_ANSWER_CACHE: answers remembered per language server (unset = default; 0 = off). */
export function answerCacheSetting(env: Environment): number | undefined {
  return integerSetting(env.LSPMESH_ANSWER_CACHE, "LSPMESH_ANSWER_CACHE", undefined, 0, 1_000_000);
}

/** The runner's flags; each overrides the LSPMESH_* variable RUNNER_USAGE names next to it. */
const RUNNER_FLAGS = {
  listen: { type: "string" },
  "workspaces-root": { type: "string" },
  languages: { type: "string" },
  nats: { type: "string" },
  "metrics-listen": { type: "string" },
} as const;

type RunnerFlags = { readonly [name in keyof typeof RUNNER_FLAGS]?: string | undefined };

/** Throws a SettingsError whose message names the setting and the fix. */
export function runnerConfig(argv: readonly string[], env: Environment): RunnerConfig {
  const { values: flags, positionals } = parseFlags({ args: [...argv], options: RUNNER_FLAGS, allowPositionals: true });
  if (positionals.length > 0) throw new SettingsError(`unexpected argument '${positionals[0]}'`);
  const { listen, grpcAuth, natsAuth, workerListen } = listenSettings(flags, env);
  const metricsListen = metricsListenSetting(flags["metrics-listen"], env);
  const tenants = tenantsSetting(env);
  const warmUp = warmUpSetting(env);
  const sandbox = choiceSetting(env, "LSPMESH_SANDBOX", SANDBOX_SETTINGS, "auto");
  const workers = choiceSetting(env, "LSPMESH_WORKERS", WORKERS_SETTINGS, "auto");
  const workerUser = workerUserSetting(env);
  const tenantLimits = tenantLimitsSetting(env);
  const logLevel = logLevelSetting(env);
  const memoryMb = integerSetting(env.LSPMESH_SERVER_MEMORY_MB, "LSPMESH_SERVER_MEMORY_MB", undefined, 0, 1 << 30);
  const idleSeconds = integerSetting(env.LSPMESH_IDLE_TIMEOUT_S, "LSPMESH_IDLE_TIMEOUT_S", undefined, 0, 1 << 30);
  const drainMs = integerSetting(env.LSPMESH_DRAIN_MS, "LSPMESH_DRAIN_MS", DEFAULT_DRAIN_MS, 0, 3_600_000);
  return {
    listen,
    ...(grpcAuth ? { grpcAuth } : {}),
    ...(workerListen ? { workerListen } : {}),
    workspaces: { root: setting(flags["workspaces-root"], env, "LSPMESH_WORKSPACES_ROOT") ?? "/workspaces" },
    languagesFile: setting(flags.languages, env, "LSPMESH_LANGUAGES_FILE"),
    maxFileBytes: integerSetting(env.LSPMESH_MAX_FILE_BYTES, "LSPMESH_MAX_FILE_BYTES", undefined, 0, 2 ** 40),
    natsUrl: setting(flags.nats, env, "LSPMESH_NATS_URL"),
    natsAuth,
    jetstreamReplicas: integerSetting(
      env[JETSTREAM_REPLICAS_SETTING],
      JETSTREAM_REPLICAS_SETTING,
      1,
      1,
      MAX_JETSTREAM_REPLICAS,
    ),
    runnerId: runnerIdSetting(env, natsAuth),
    advertiseAddress: setting(undefined, env, "LSPMESH_ADVERTISE_ADDRESS"),
    pool: setting(undefined, env, "LSPMESH_POOL"),
    tenants,
    heartbeatMs: integerSetting(env.LSPMESH_HEARTBEAT_MS, "LSPMESH_HEARTBEAT_MS", undefined, 1, 3_600_000),
    // Only "0" turns watching off.
    watchWorkspaces: setting(undefined, env, "LSPMESH_WATCH") !== "0",
    metricsListen,
    drainMs,
    handoffMs: handoffSetting(env, drainMs),
    serverMemoryBytes: mebibytes(memoryMb),
    idleTimeoutMs: idleSeconds === undefined ? undefined : idleSeconds * 1000,
    warmUp,
    sandbox,
    workers,
    stateDir: setting(undefined, env, "LSPMESH_STATE_DIR"),
    ...(workerUser ? { workerUser } : {}),
    tenantLimits,
    logLevel,
    answerCacheEntries: answerCacheSetting(env),
    answerWarming: answerWarmingSetting(env).maxAnswers,
    allowGitWrites: setting(undefined, env, "LSPMESH_ALLOW_GIT_WRITES") === "1",
    symbolIndex: symbolIndexSetting(env),
  };
}

/** LSPMESH_HANDOFF (0 = off) and LSPMESH_HANDOFF_MS (default: what the drain leaves past the call deadline). */
function handoffSetting(env: Environment, drainMs: number): number {
  if (setting(undefined, env, "LSPMESH_HANDOFF") === "0") return 0;
  return integerSetting(env.LSPMESH_HANDOFF_MS, "LSPMESH_HANDOFF_MS", defaultHandoffMs(drainMs), 0, 3_600_000);
}

/** Megabytes (as the variables give them) in bytes; unset stays unset. */
function mebibytes(megabytes: number | undefined): number | undefined {
  return megabytes === undefined ? undefined : megabytes * 1024 * 1024;
}

/**
 * The gRPC address and the credentials gateways and NATS need: an address off loopback is
 * refused without gRPC credentials (a shared secret file, mTLS files, or both).
 */
function listenSettings(flags: RunnerFlags, env: Environment) {
  const listen = hostPortSetting(
    setting(flags.listen, env, "LSPMESH_LISTEN") ?? `127.0.0.1:${DEFAULT_RUNNER_PORT}`,
    "listen",
  );
  const grpcAuth = credentialSetting(env, grpcAuthSettings, GrpcAuthError);
  const natsAuth = credentialSetting(env, natsClientAuth, NatsAuthError);
  const listenHost = listen.slice(0, listen.lastIndexOf(":"));
  if (!grpcAuth && !isLoopbackHost(listenHost))
    throw new SettingsError(
      `refusing to listen on ${listen} without credentials: set LSPMESH_GRPC_SECRET_FILE (a shared secret the gateways also read) or LSPMESH_GRPC_TLS_CERT, LSPMESH_GRPC_TLS_KEY and LSPMESH_GRPC_TLS_CA (mTLS), or listen on 127.0.0.1`,
    );
  const workerListen = workerListenSetting(env, grpcAuth);
  return { listen, grpcAuth, natsAuth, ...(workerListen ? { workerListen } : {}) };
}

/**
 * LSPMESH_WORKER_LISTEN: the tunnel a gateway opens to a tenant's worker carries plain gRPC that
 * the worker (which holds no key) serves, so it cannot be TLS; off the loopback it needs the secret.
 */
function workerListenSetting(env: Environment, grpcAuth: GrpcAuthSettings | undefined): string | undefined {
  const given = setting(undefined, env, "LSPMESH_WORKER_LISTEN");
  if (given === undefined) return undefined;
  const workerListen = hostPortSetting(given, "LSPMESH_WORKER_LISTEN");
  if (grpcAuth?.tls)
    throw new SettingsError(
      "LSPMESH_WORKER_LISTEN cannot be used with mTLS (LSPMESH_GRPC_TLS_*): a tenant worker holds no key to end TLS with; unset it (calls are then relayed) or authenticate with LSPMESH_GRPC_SECRET_FILE alone",
    );
  if (!grpcAuth && !isLoopbackHost(workerListen.slice(0, workerListen.lastIndexOf(":"))))
    throw new SettingsError(
      `refusing to take worker connections on ${workerListen} without credentials: set LSPMESH_GRPC_SECRET_FILE, or listen on 127.0.0.1`,
    );
  return workerListen;
}

/**
 * LSPMESH_RUNNER_ID. With a runner pool's NATS credential (a creds file tagged `pool:<pool>`, from
 * `lspmesh admin creds runner POOL`), which may write only the registry keys `<pool>.*`, the id must
 * be `<pool>.<name>`; unset, it is `<pool>.<hostname>-<pid>`. Unset otherwise: chosen at start.
 */
function runnerIdSetting(env: Environment, natsAuth: NatsClientAuth | undefined): string | undefined {
  const given = setting(undefined, env, "LSPMESH_RUNNER_ID");
  const credentials = natsAuth?.credentials;
  if (credentials?.kind !== "creds") return given;
  let text: string;
  try {
    text = readFileSync(credentials.file, "utf8");
  } catch {
    return given; // Reported when connecting, with the file's name.
  }
  const pool = natsCredsIdentity(text)
    ?.tags.find((tag) => tag.startsWith("pool:"))
    ?.slice("pool:".length);
  if (!pool) return given;
  // One subject token after the pool: the credential's `<pool>.*` matches no more.
  if (given === undefined) return `${pool}.${defaultRunnerId().replace(/\./g, "-")}`;
  const name = given.startsWith(`${pool}.`) ? given.slice(pool.length + 1) : "";
  if (!name || name.includes("."))
    throw new SettingsError(
      `LSPMESH_RUNNER_ID '${given}' must be '${pool}.<name>' (no '.' in the name): the NATS credential in ${credentials.file} is runner pool '${pool}''s, which may register only ids '${pool}.*' (e.g. LSPMESH_RUNNER_ID=${pool}.$(POD_NAME))`,
    );
  return given;
}

/** LSPMESH_TENANTS: the tenant allowlist of a dedicated pool; unset = any tenant. */
function tenantsSetting(env: Environment): string[] | undefined {
  const tenants = listSetting(env.LSPMESH_TENANTS);
  for (const tenant of tenants ?? []) {
    if (!ID_PATTERN.test(tenant)) throw new SettingsError(`invalid tenant '${tenant}' in LSPMESH_TENANTS: ${ID_RULE}`);
  }
  return tenants;
}

/** LSPMESH_WARMUP: tenant/workspace/language entries, comma-separated; unset = none. */
function warmUpSetting(env: Environment): WarmUpEntry[] {
  try {
    return parseWarmUpList(env.LSPMESH_WARMUP ?? "");
  } catch (error) {
    throw new SettingsError(`invalid LSPMESH_WARMUP: ${(error as Error).message}`);
  }
}

/** LSPMESH_WORKER_USER: "uid:gid"; unset = the runner's own user. */
function workerUserSetting(env: Environment): RunnerConfig["workerUser"] {
  const text = setting(undefined, env, "LSPMESH_WORKER_USER");
  if (text === undefined) return undefined;
  const match = /^(\d{1,10}):(\d{1,10})$/.exec(text);
  if (!match) throw new SettingsError(`invalid LSPMESH_WORKER_USER '${text}': use uid:gid, e.g. 65534:65534`);
  return { uid: Number(match[1]), gid: Number(match[2]) };
}

/** LSPMESH_TENANT_*: what one tenant may hold on this runner; unset = the session policy's defaults. */
function tenantLimitsSetting(env: Environment): NonNullable<RunnerConfig["tenantLimits"]> {
  const memoryMb = integerSetting(env.LSPMESH_TENANT_MEMORY_MB, "LSPMESH_TENANT_MEMORY_MB", undefined, 0, 1 << 30);
  return {
    sessions: integerSetting(env.LSPMESH_TENANT_MAX_SESSIONS, "LSPMESH_TENANT_MAX_SESSIONS", undefined, 0, 100_000),
    processes: integerSetting(
      env.LSPMESH_TENANT_MAX_PROCESSES,
      "LSPMESH_TENANT_MAX_PROCESSES",
      undefined,
      0,
      1_000_000,
    ),
    memoryBytes: mebibytes(memoryMb),
    watches: integerSetting(env.LSPMESH_TENANT_MAX_WATCHES, "LSPMESH_TENANT_MAX_WATCHES", undefined, 0, 100_000_000),
  };
}

/** LSPMESH_SYMBOL_INDEX (on unless "0") and LSPMESH_INDEX_* limits; unset = the indexer's defaults. */
function symbolIndexSetting(env: Environment): RunnerConfig["symbolIndex"] {
  return {
    enabled: setting(undefined, env, "LSPMESH_SYMBOL_INDEX") !== "0",
    maxFiles: integerSetting(env.LSPMESH_INDEX_MAX_FILES, "LSPMESH_INDEX_MAX_FILES", undefined, 1, 10_000_000),
    maxSymbolsPerFile: integerSetting(
      env.LSPMESH_INDEX_MAX_SYMBOLS_PER_FILE,
      "LSPMESH_INDEX_MAX_SYMBOLS_PER_FILE",
      undefined,
      1,
      1_000_000,
    ),
    // Bytes per tenant; -1 = no limit.
    maxBytesPerTenant: integerSetting(env.LSPMESH_INDEX_MAX_BYTES, "LSPMESH_INDEX_MAX_BYTES", undefined, -1, 2 ** 50),
  };
}
