// The runner's public way in: a RunnerConfig (from runnerConfig(), or built by a command such as
// `lspmesh serve`) becomes a running runner. Workspace locator and languages are built here, so
// callers never reach into the runner's internals.

import { GrpcAuth } from "@lspmesh/grpc";
import type { RunnerConfig, SandboxSetting } from "./config.js";
import type { RunnerEventBus } from "./events/eventBus.js";
import { loadLanguageRegistry } from "./lsp/languages/languageConfig.js";
import { containerMemoryBudget } from "./lsp/pool/memoryBudget.js";
import type { LifecycleEvent } from "./lsp/pool/sessionManager.js";
import { detectSandbox, type Sandbox } from "./lsp/process/sandbox.js";
import { type RunnerServer, type ServerStateEvent, startRunnerServer } from "./runnerServer.js";
import { SingleWorkspaceLocator, VolumeWorkspaceLocator } from "./workspace/workspaceLocator.js";

/** What a runner needs beyond its settings. */
export interface RunnerHooks {
  /** One structured log entry ({ level, msg, …fields }); default: discarded. */
  log?: (entry: Record<string, unknown>) => void;
  /** The event backbone (NATS in a cluster); the caller closes it after the runner. Default: in-process. */
  events?: RunnerEventBus;
  /** Every change of a server's state, for a console (serve's progress lines). */
  onServerState?: (event: ServerStateEvent) => void;
  /** Servers started, failed (with the reason) and stopped. */
  onLifecycleEvent?: (event: LifecycleEvent) => void;
}

export type RunnerSettings = Partial<Omit<RunnerConfig, "listen" | "workspaces">> &
  Pick<RunnerConfig, "listen" | "workspaces">;

export type RunningRunner = Pick<
  RunnerServer,
  "address" | "id" | "metricsAddress" | "warmedUp" | "close" | "symbolIndex" | "inProcessClient"
>;

/**
 * Throws LanguageConfigError for a bad languages file (callers report it as a usage error), and
 * GrpcAuthError for unreadable credentials.
 */
export async function startRunner(settings: RunnerSettings, hooks: RunnerHooks = {}): Promise<RunningRunner> {
  const languages = await loadLanguageRegistry(settings.languagesFile);
  hooks.log?.({
    level: "info",
    msg: "languages",
    file: settings.languagesFile,
    enabled: languages.languages.map((language) => language.id),
    installed: languages.installed().map((language) => language.id),
  });
  const workspaces = settings.workspaces;
  const sandbox = await runnerSandbox(settings.sandbox ?? "none");
  const tenantsTrustEachOther = (settings.tenants?.length ?? 0) > 0;
  hooks.log?.({
    level: sandbox.sandbox || tenantsTrustEachOther ? "info" : "warn",
    msg: sandbox.sandbox
      ? "language servers run sandboxed (bubblewrap)"
      : tenantsTrustEachOther
        ? "language servers run without a sandbox; the tenants in LSPMESH_TENANTS share this runner"
        : "language servers run without a sandbox: this runner holds one tenant's sessions at a time",
    ...(sandbox.sandbox ? { bwrap: sandbox.sandbox.bwrapPath } : { reason: sandbox.reason }),
  });
  return startRunnerServer({
    listen: settings.listen,
    ...(settings.grpcAuth ? { grpcAuth: GrpcAuth.from(settings.grpcAuth) } : {}),
    locator:
      "root" in workspaces
        ? new VolumeWorkspaceLocator(workspaces.root)
        : new SingleWorkspaceLocator(workspaces.dir, workspaces.tenant, workspaces.workspace),
    languages,
    maxFileBytes: settings.maxFileBytes,
    answerCacheEntries: settings.answerCacheEntries,
    sessionPolicy: {
      memoryBudgetBytes: settings.serverMemoryBytes ?? (await containerMemoryBudget()),
      idleTimeoutMs: settings.idleTimeoutMs,
      sandbox: sandbox.sandbox,
      tenantsTrustEachOther,
      ...(settings.tenantLimits ? { tenantLimits: settings.tenantLimits } : {}),
    },
    warmUp: settings.warmUp,
    events: hooks.events,
    runnerId: settings.runnerId,
    advertiseAddress: settings.advertiseAddress,
    pool: settings.pool,
    tenants: settings.tenants?.length ? settings.tenants : undefined,
    heartbeatMs: settings.heartbeatMs,
    watchWorkspaces: settings.watchWorkspaces,
    metricsListen: settings.metricsListen,
    symbolIndex: {
      ...settings.symbolIndex,
      // One folder served: its index is built from the start (a volume's, once a request names them).
      workspaces: "root" in workspaces ? [] : [{ tenant: workspaces.tenant, workspace: workspaces.workspace }],
    },
    log: hooks.log,
    onServerState: hooks.onServerState,
    onLifecycleEvent: hooks.onLifecycleEvent,
  });
}

/** Thrown when LSPMESH_SANDBOX=bwrap and bubblewrap does not work here. */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}

async function runnerSandbox(setting: SandboxSetting): Promise<{ sandbox?: Sandbox; reason: string }> {
  if (setting === "none") return { reason: "LSPMESH_SANDBOX=none" };
  const found = await detectSandbox();
  if ("sandbox" in found) return { sandbox: found.sandbox, reason: "" };
  if (setting === "bwrap") throw new SandboxUnavailableError(`LSPMESH_SANDBOX=bwrap, but ${found.reason}`);
  return { reason: found.reason };
}
