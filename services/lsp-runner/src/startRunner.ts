// The runner's public way in: a RunnerConfig (from runnerConfig(), or built by a command such as
// `lspmesh serve`) becomes a running runner. Workspace locator and languages are built here, so
// callers never reach into the runner's internals.

import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { GrpcAuth } from "@lspmesh/grpc";
import { tracingEnabled } from "@lspmesh/service-kit";
import type { RunnerConfig, SandboxSetting } from "./config.js";
import { landlockStatus } from "./confinement/landlock.js";
import type { RunnerEventBus } from "./events/eventBus.js";
import { loadLanguageRegistry } from "./lsp/languages/languageConfig.js";
import type { LanguageRegistry } from "./lsp/languages/languageRegistry.js";
import { containerMemoryBudget } from "./lsp/pool/memoryBudget.js";
import type { LifecycleEvent } from "./lsp/pool/sessionManager.js";
import { detectSandbox, type Sandbox } from "./lsp/process/sandbox.js";
import { type RunnerServer, type ServerStateEvent, startRunnerServer } from "./runnerServer.js";
import { startSupervisor } from "./supervisor.js";
import { createStateFolder, removeStaleStateFolders } from "./workers/stateFolders.js";
import { createWorkerLauncher } from "./workers/workerLauncher.js";
import { SingleWorkspaceLocator, VolumeWorkspaceLocator } from "./workspace/workspaceLocator.js";
import { isInside } from "./workspace/workspacePaths.js";

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
> & {
  /** host:port taking direct worker connections (LSPMESH_WORKER_LISTEN with tenant workers). */
  readonly workerAddress?: string | undefined;
};

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
  // No setting (lspmesh serve, lspmesh mcp): one user's own folder, served unsandboxed.
  const sandbox =
    settings.sandbox === undefined ? { reason: "one user's own folder" } : await runnerSandbox(settings.sandbox);
  if ("root" in workspaces && (settings.workers ?? "off") === "auto") {
    const landlock = landlockStatus();
    if (landlock.abi > 0) {
      return startWorkerSupervisor(settings, workspaces.root, languages, sandbox.sandbox, landlock.abi, hooks);
    }
    hooks.log?.({
      level: "warn",
      msg: "tenant workers cannot be confined here (no Landlock in this kernel): tenants share the runner process",
      landlock: landlock.reason,
    });
  }
  if (settings.workerListen)
    hooks.log?.({ level: "warn", msg: "LSPMESH_WORKER_LISTEN ignored: this runner has no tenant workers" });
  const tenantsTrustEachOther = (settings.tenants?.length ?? 0) > 0;
  hooks.log?.({
    level: sandbox.sandbox || tenantsTrustEachOther || settings.sandbox === undefined ? "info" : "warn",
    msg: sandbox.sandbox
      ? "language servers run sandboxed (bubblewrap)"
      : tenantsTrustEachOther
        ? "language servers run without a sandbox; the tenants in LSPMESH_TENANTS share this runner"
        : "language servers run without a sandbox: this runner holds one tenant's sessions at a time",
    ...(sandbox.sandbox ? { bwrap: sandbox.sandbox.bwrapPath } : { reason: sandbox.reason }),
  });
  return startRunnerServer({
    ...endpointOptions(settings, hooks),
    locator:
      "root" in workspaces
        ? new VolumeWorkspaceLocator(workspaces.root)
        : new SingleWorkspaceLocator(workspaces.dir, workspaces.tenant, workspaces.workspace),
    ...("root" in workspaces ? { workspacesRoot: workspaces.root } : {}),
    languages,
    maxFileBytes: settings.maxFileBytes,
    answerCacheEntries: settings.answerCacheEntries,
    answerWarming: settings.answerWarming,
    allowGitWrites: settings.allowGitWrites,
    sessionPolicy: {
      memoryBudgetBytes: settings.serverMemoryBytes ?? (await containerMemoryBudget()),
      idleTimeoutMs: settings.idleTimeoutMs,
      sandbox: sandbox.sandbox,
      tenantsTrustEachOther,
      ...(settings.tenantLimits ? { tenantLimits: settings.tenantLimits } : {}),
    },
    warmUp: settings.warmUp,
    watchWorkspaces: settings.watchWorkspaces,
    symbolIndex: {
      ...settings.symbolIndex,
      // One folder served: its index is built from the start (a volume's, once a request names them).
      workspaces: "root" in workspaces ? [] : [{ tenant: workspaces.tenant, workspace: workspaces.workspace }],
    },
    onServerState: hooks.onServerState,
    onLifecycleEvent: hooks.onLifecycleEvent,
  });
}

/** What the gRPC endpoint of either kind of runner takes from the settings. */
function endpointOptions(settings: RunnerSettings, hooks: RunnerHooks) {
  return {
    listen: settings.listen,
    ...(settings.grpcAuth ? { grpcAuth: GrpcAuth.from(settings.grpcAuth) } : {}),
    events: hooks.events,
    runnerId: settings.runnerId,
    advertiseAddress: settings.advertiseAddress,
    pool: settings.pool,
    tenants: settings.tenants?.length ? settings.tenants : undefined,
    heartbeatMs: settings.heartbeatMs,
    handoffMs: settings.handoffMs,
    metricsListen: settings.metricsListen,
    log: hooks.log,
  };
}

/**
 * One confined worker process per tenant behind a supervisor that holds the credentials: Landlock
 * always, bubblewrap around it where that works too (and LSPMESH_SANDBOX is not none).
 */
async function startWorkerSupervisor(
  settings: RunnerSettings,
  root: string,
  languages: LanguageRegistry,
  bwrap: Sandbox | undefined,
  landlockAbi: number,
  hooks: RunnerHooks,
): Promise<RunningRunner> {
  // The workers' homes and temporary folders: a fresh folder per runner process (removed when it
  // stops) unless the operator names one (e.g. an emptyDir volume).
  const ownState = settings.stateDir === undefined;
  if (ownState) {
    const removed = removeStaleStateFolders();
    if (removed.length > 0) hooks.log?.({ level: "info", msg: "state folders of stopped runners removed", removed });
  }
  const stateDir = settings.stateDir ?? createStateFolder();
  const workerListen = directConnections(settings, hooks);
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const launcher = createWorkerLauncher({
    root,
    stateDir,
    languages,
    languagesFile: settings.languagesFile,
    bwrap,
    ...(settings.workerUser && process.getuid?.() === 0 ? { user: settings.workerUser } : {}),
    connections: workerListen !== undefined,
  });
  refuseReadableSecrets(settings, launcher.readablePaths);
  const rootWithoutNamespaces = process.getuid?.() === 0 && !bwrap && !settings.workerUser;
  hooks.log?.({
    level: rootWithoutNamespaces ? "warn" : "info",
    msg: rootWithoutNamespaces
      ? "tenant workers run as root with Landlock only: a worker can read other processes' /proc/<pid>/environ; run the runner as a non-root user, set LSPMESH_WORKER_USER, or allow bubblewrap"
      : "tenant workers: one confined process per tenant",
    confinement: launcher.confinement,
    landlockAbi,
  });
  const supervisor = await startSupervisor({
    ...endpointOptions(settings, hooks),
    root,
    languages,
    launcher,
    ...(workerListen ? { workerListen } : {}),
    worker: {
      languagesFile: settings.languagesFile,
      maxFileBytes: settings.maxFileBytes,
      answerCacheEntries: settings.answerCacheEntries,
      answerWarming: settings.answerWarming,
      allowGitWrites: settings.allowGitWrites,
      idleTimeoutMs: settings.idleTimeoutMs,
      memoryBudgetBytes: settings.serverMemoryBytes ?? (await containerMemoryBudget()),
      ...(settings.tenantLimits ? { tenantLimits: settings.tenantLimits } : {}),
      watchWorkspaces: settings.watchWorkspaces,
      symbolIndex: settings.symbolIndex,
      warmUp: settings.warmUp,
      // Workers record spans only when this runner exports them (they relay theirs through it).
      tracing: tracingEnabled(),
    },
  }).catch((error: unknown) => {
    if (ownState) rmSync(stateDir, { recursive: true, force: true });
    throw error;
  });
  return {
    ...supervisor,
    close: async (graceMs?: number) => {
      await supervisor.close(graceMs);
      if (ownState) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * LSPMESH_WORKER_LISTEN, unless tracing is on: a call a worker answers on its own connection has
 * no span of this runner, so while traces are exported every call is relayed (said at start).
 */
function directConnections(settings: RunnerSettings, hooks: RunnerHooks): string | undefined {
  if (!settings.workerListen || !tracingEnabled()) return settings.workerListen;
  hooks.log?.({
    level: "info",
    msg: "LSPMESH_WORKER_LISTEN not used while tracing is on: every call is relayed, so that each trace shows the runner's span",
  });
  return undefined;
}

/** A credential a worker could read would be a credential every tenant could read: refuse to start. */
function refuseReadableSecrets(settings: RunnerSettings, readable: readonly string[]): void {
  const files = [settings.grpcAuth?.secretFile, settings.grpcAuth?.tls?.keyFile].filter(
    (file): file is string => typeof file === "string",
  );
  for (const file of files) {
    const path = resolve(file);
    const inside = readable.find((dir) => isInside(dir, path));
    if (inside) {
      throw new SandboxUnavailableError(
        `the credential ${path} is inside ${inside}, which tenant workers may read: keep credentials outside the installation, the workspaces root and the state folder (e.g. a mounted secret under /var/run/secrets)`,
      );
    }
  }
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
