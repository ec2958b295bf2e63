// What answers Runner calls for a set of workspaces: language sessions, the query engine, the
// symbol indexer and the events they publish, behind the Runner service implementation. The
// in-process runner (one trust domain: `lspmesh serve`, a tenant-pinned runner) runs one core next
// to its gRPC server; a supervising runner runs one core per tenant, each in its own confined
// worker process (workers/). Knows nothing of the gRPC server, the registry or secrets.
import type { ServiceImplementation } from "@lspmesh/grpc";
import type { Runner } from "@lspmesh/proto";
import { AnswerCache } from "./engine/answerCache.js";
import type { WorkspaceRef } from "./engine/answers.js";
import { DEFAULT_WARMING } from "./engine/answerWarming.js";
import { QueryEngine } from "./engine/queryEngine.js";
import type { RunnerEventBus } from "./events/eventBus.js";
import { RunnerEvents } from "./events/runnerEvents.js";
import { cachedMethods, runnerClientCapabilities } from "./features/index.js";
import { runnerService } from "./grpc/runnerService.js";
import { withAgentActivity } from "./grpc/trackedCalls.js";
import type { LanguageRegistry } from "./lsp/languages/languageRegistry.js";
import { type LifecycleEvent, SessionManager, type SessionManagerOptions } from "./lsp/pool/sessionManager.js";
import { type SessionPolicyOverrides, sessionPolicy } from "./lsp/pool/sessionPolicy.js";
import type { ServerStateName } from "./lsp/session/sessionState.js";
import { AgentActivity } from "./symbolIndex/agentActivity.js";
import { SymbolIndexer, type SymbolIndexLimits } from "./symbolIndex/symbolIndexer.js";
import { WatchBudget } from "./workspace/watchBudget.js";
import type { WorkspaceLocator } from "./workspace/workspaceLocator.js";

/** A server's state as a console shows it. */
export interface ServerStateEvent {
  tenant: string;
  workspace: string;
  language: string;
  state: ServerStateName | "stopped";
  /** Work-done progress text, e.g. "Indexing: 3/10 30%" ("" when none). */
  progress: string;
}

/** What a runner core let go of when a workspace was deleted (RunnerCore.releaseWorkspace). */
export interface ReleasedWorkspace {
  /** Language servers that ran (or were starting) and were stopped. */
  servers: number;
  /** Its symbol index was followed (so the store holds keys of it, meta or not). */
  indexed: boolean;
}

/** A language a runner serves, as gateways route by it: id and lower-case extensions with the dot. */
export interface ServedLanguage {
  id: string;
  extensions: string[];
}

export interface RunnerCoreOptions {
  runnerId: string;
  /** Where sessions publish and the indexer stores; the caller owns and closes it. */
  bus: RunnerEventBus;
  locator: WorkspaceLocator;
  languages: LanguageRegistry;
  /** Tenants this core may serve (a dedicated pool, or a worker's one tenant); undefined: any. */
  tenants?: readonly string[];
  maxFileBytes?: number;
  /** Read-only answers remembered per session (default MAX_ANSWERS_PER_SESSION); 0 = no cache. */
  answerCacheEntries?: number;
  /** Questions per session asked again after documents were opened (default DEFAULT_WARMING's); 0 = off. */
  answerWarming?: number | undefined;
  /** Write tools may change files under `.git/` (default false). */
  allowGitWrites?: boolean;
  sessionPolicy?: SessionPolicyOverrides;
  onLifecycleEvent?: (event: LifecycleEvent) => void;
  onServerState?: (event: ServerStateEvent) => void;
  onServerMessage?: SessionManagerOptions["onOutgoing"];
  log: (entry: Record<string, unknown>) => void;
  /** Watch workspaces with inotify (default true). */
  watchWorkspaces?: boolean;
  /** Quiet time before locally seen file changes are applied, ms (default 100). */
  watchDebounceMs?: number;
  /** How often folders past a tenant's watch budget are polled, ms (default 5 000). */
  watchPollMs?: number;
  symbolIndex?: SymbolIndexLimits & { enabled?: boolean; workspaces?: readonly WorkspaceRef[] };
  /** A workspace deleted in the control plane (workspaceDeletions.ts): not indexed. Default: none. */
  isDeleted?: (tenant: string, workspace: string) => boolean;
}

export interface RunnerCore {
  readonly sessions: SessionManager;
  readonly engine: QueryEngine;
  readonly events: RunnerEvents;
  readonly symbolIndexer: SymbolIndexer | undefined;
  /** The Runner service over this core (every call counted as agent activity). */
  readonly implementation: ServiceImplementation<typeof Runner.method>;
  readonly served: ServedLanguage[];
  /**
   * Settles once the indexes of `symbolIndex.workspaces` are listed and announced (state
   * indexing or ready), so that a search from then on is answered from the index, never by
   * starting a language server because no index was known yet.
   */
  readonly indexesAnnounced: Promise<void>;
  /**
   * Lets go of one workspace for good (deleted in the control plane): its language servers stopped
   * (resolves once their processes are gone, stop reason "deleted"), its indexing and its file
   * watches stopped, no index write under way. Its stored index and published diagnostics are the
   * bus owner's to remove (workspaceDeletions.ts).
   */
  releaseWorkspace(ref: WorkspaceRef): Promise<ReleasedWorkspace>;
  /** Stops indexing, watching and every language server. Idempotent. */
  close(): Promise<void>;
  /** close(), for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Languages whose server is installed, as Describe and the registry announce them. */
export function servedLanguages(languages: LanguageRegistry): ServedLanguage[] {
  return languages.installed().map((language) => ({
    id: language.id,
    extensions: Object.keys(language.extensions).map((extension) => extension.toLowerCase()),
  }));
}

export function startRunnerCore(options: RunnerCoreOptions): RunnerCore {
  const { bus, log, locator, languages, runnerId } = options;
  // One budget of inotify watches per tenant, over all its workspaces and both watchers.
  const watchBudget = new WatchBudget(sessionPolicy(options.sessionPolicy).tenantLimits.watches);
  const events = new RunnerEvents({
    bus,
    runnerId,
    watchBudget,
    watchLocally: options.watchWorkspaces ?? true,
    watchDebounceMs: options.watchDebounceMs,
    watchPollMs: options.watchPollMs,
    log,
  });
  // Created after the engine it queries; session events reach it once it exists.
  let indexer: SymbolIndexer | undefined;
  // Before the sessions: it follows their events (content moved, closed) to keep answers warm.
  const warming =
    options.answerWarming === undefined ? DEFAULT_WARMING : { ...DEFAULT_WARMING, maxAnswers: options.answerWarming };
  const answers = new AnswerCache(options.answerCacheEntries, cachedMethods(), warming);
  const sessions = coreSessions(options, events, () => indexer, answers);
  const activity = new AgentActivity();
  const engine: QueryEngine = new QueryEngine({
    locator,
    languages,
    sessions,
    changes: events,
    answers,
    allowGitWrites: options.allowGitWrites,
    log,
    onWorkspaceUsed: (ref) => void indexer?.ensure(ref),
  });
  if (options.symbolIndex?.enabled ?? true) indexer = coreIndexer(options, { sessions, engine, activity, watchBudget });
  const served = servedLanguages(languages);
  const implementation = withAgentActivity(runnerService(engine, { runnerId, languages: served }), activity);
  const indexesAnnounced = announceIndexes(options, engine, indexer);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await indexer?.close();
      await events.close();
      await sessions.close();
    })();
    return closing;
  };
  const releaseWorkspace = async (ref: WorkspaceRef): Promise<ReleasedWorkspace> => {
    const [indexed, servers] = await Promise.all([
      indexer?.forget(ref) ?? false,
      sessions.stopWorkspace(ref.tenant, ref.workspace, "deleted"),
      events.forget(ref),
    ]);
    return { servers, indexed };
  };
  return {
    sessions,
    engine,
    events,
    releaseWorkspace,
    symbolIndexer: indexer,
    implementation,
    served,
    indexesAnnounced,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * The core's language sessions: their events are published, logged, shown on a console
 * (onServerState), and a server turning ready lets the symbol indexer (once there is one) use it.
 */
function coreSessions(
  options: RunnerCoreOptions,
  events: RunnerEvents,
  indexer: () => SymbolIndexer | undefined,
  answers: AnswerCache,
): SessionManager {
  const { log } = options;
  return new SessionManager({
    clientCapabilities: runnerClientCapabilities(),
    maxFileBytes: options.maxFileBytes,
    policy: options.sessionPolicy,
    onLog: (entry) => log({ level: "debug", msg: "language server", ...entry }),
    onLifecycleEvent: (event) => {
      log({ level: event.kind === "failed" ? "warn" : "info", msg: `language server ${event.kind}`, ...event });
      options.onLifecycleEvent?.(event);
    },
    onOutgoing: options.onServerMessage,
    onSessionEvent: (origin, event) => {
      events.onSessionEvent(origin, event);
      answers.sessionEvent(event);
      if (event.type === "state" && event.state === "ready") indexer()?.serverReady(origin, origin.language);
      if (event.type === "diagnostics" || event.type === "content") return;
      options.onServerState?.({
        tenant: origin.tenant,
        workspace: origin.workspace,
        language: origin.language,
        state: event.type === "closed" ? "stopped" : event.state,
        progress: event.session.progress.summary(),
      });
    },
  });
}

/** The symbol indexer: reads document symbols through the engine, from servers already running. */
function coreIndexer(
  options: RunnerCoreOptions,
  parts: { sessions: SessionManager; engine: QueryEngine; activity: AgentActivity; watchBudget: WatchBudget },
): SymbolIndexer {
  const { sessions, engine } = parts;
  return new SymbolIndexer({
    bus: options.bus,
    runnerId: options.runnerId,
    tenants: options.tenants,
    locator: options.locator,
    languages: options.languages,
    activity: parts.activity,
    isDeleted: options.isDeleted && ((ref) => options.isDeleted?.(ref.tenant, ref.workspace) ?? false),
    serverRunning: (ref, language) =>
      sessions
        .statusOf(ref.tenant, ref.workspace)
        .some((status) => status.language === language && (status.state === "ready" || status.state === "indexing")),
    documentSymbols: async (ref, file, signal) =>
      (await engine.navigation.documentSymbols({ ref, file, signal, transient: true })).symbols,
    watchLocally: options.watchWorkspaces ?? true,
    debounceMs: options.watchDebounceMs,
    pollMs: options.watchPollMs,
    watchBudget: parts.watchBudget,
    maxFiles: options.symbolIndex?.maxFiles,
    maxSymbolsPerFile: options.symbolIndex?.maxSymbolsPerFile,
    maxFileBytes: options.symbolIndex?.maxFileBytes ?? options.maxFileBytes,
    log: options.log,
  });
}

/**
 * Settles once the indexes of `symbolIndex.workspaces` are announced (RunnerCore.indexesAnnounced);
 * meanwhile the indexes this runner stored before a restart are taken up again.
 */
function announceIndexes(
  options: RunnerCoreOptions,
  engine: QueryEngine,
  indexer: SymbolIndexer | undefined,
): Promise<void> {
  const { log } = options;
  // Edits a crash interrupted are undone before anything reads the workspace (the indexer included).
  const announced = Promise.all(
    (options.symbolIndex?.workspaces ?? []).map(async (ref) => {
      await engine
        .recoverEdits(ref)
        .catch((error) => log({ level: "warn", msg: "interrupted edits not undone", ...ref, error: String(error) }));
      await indexer?.ensure(ref);
    }),
  ).then(() => {});
  void indexer
    ?.catchUpOwned()
    .then((count) => count > 0 && log({ level: "info", msg: "symbol indexes taken up again", count }))
    .catch((error) => log({ level: "warn", msg: "stored symbol indexes not listed", error: String(error) }));
  return announced;
}
