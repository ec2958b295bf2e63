// The start of a session's conversation with its server: the initialize handshake (what is sent,
// what the answer settles: capabilities, position encoding, the server's name), then what the
// language says the server reports while it loads — an index announced by `$/progress`
// (indexProgress) or, for a server that reports nothing, a readiness probe (readinessProbe.ts).

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import type { ClientCapabilities } from "vscode-languageserver-protocol";
import {
  DidChangeConfigurationNotification,
  InitializedNotification,
  type InitializeParams,
  type InitializeResult,
  type ServerCapabilities,
  type WorkspaceSymbolRequest,
} from "vscode-languageserver-protocol";
import type { LanguageServerConfig } from "../languages/languageRegistry.js";
import { SESSION_CLIENT_CAPABILITIES } from "./clientCapabilities.js";
import type { PositionEncoding } from "./positionEncoding.js";
import { DEFAULT_READINESS_TIMEOUT_MS, declaredName, probeUntilFound } from "./readinessProbe.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, type RequestChannel } from "./requestChannel.js";
import { sanitizeServerMessage } from "./serverErrors.js";
import type { SessionSettings } from "./sessionOptions.js";
import type { ProgressTracker } from "./sessionState.js";

/** How long a server may take to answer initialize, ms (default 60 000). */
const DEFAULT_START_TIMEOUT_MS = 60_000;
/** How long an awaited index (indexProgress) may take to start before calls stop waiting for it, ms (60 000). */
const DEFAULT_INDEX_START_TIMEOUT_MS = 60_000;

/** How long `language`'s server may take to answer initialize, ms. */
export function startTimeoutMs(language: LanguageServerConfig): number {
  return language.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
}

/**
 * The initialize request for a server of `language` serving the workspace at `root` (a real path),
 * declaring `capabilities` (default: only what the session itself relies on).
 */
export function initializeParams(
  language: LanguageServerConfig,
  root: string,
  sandboxed: boolean,
  capabilities: ClientCapabilities = SESSION_CLIENT_CAPABILITIES,
): InitializeParams {
  const rootUri = rootUriOf(root);
  return {
    // Servers that watch their parent exit when the runner dies. In the sandbox's pid namespace
    // the runner's pid does not exist (the server would exit at its first check): null there,
    // where the watchdog and bwrap's --die-with-parent end the server with the runner.
    processId: sandboxed ? null : process.pid,
    clientInfo: { name: "lspmesh" },
    rootUri,
    rootPath: root,
    workspaceFolders: [{ uri: rootUri, name: "workspace" }],
    capabilities,
    initializationOptions: language.initializationOptions,
  };
}

/** The workspace root as a file URI, as servers are told it. */
export function rootUriOf(root: string): string {
  return pathToFileURL(root).href;
}

/** What the initialize answer settles for the rest of the session. */
export interface NegotiatedServer {
  capabilities: ServerCapabilities;
  encoding: PositionEncoding;
  /** "name version" as the server gave it, else the language's description of it. */
  serverName: string;
}

export function negotiated(result: InitializeResult, language: LanguageServerConfig): NegotiatedServer {
  const offered = result.capabilities.positionEncoding;
  const info = result.serverInfo;
  return {
    capabilities: result.capabilities,
    encoding: offered === "utf-8" || offered === "utf-32" ? offered : "utf-16",
    serverName:
      info?.name && info.version
        ? `${info.name} ${readableVersion(info.version)}`
        : (language.serverDescription ??
          [info?.name ?? language.id, info?.version && readableVersion(info.version)].filter(Boolean).join(" ")),
  };
}

/**
 * A server's version as people write it. gopls gives its Go build info as JSON
 * (`{"GoVersion":"go1.19.5","Path":"golang.org/x/tools/gopls",…,"Version":"v0.16.1"}`): that is
 * "v0.16.1 (go1.19.5)". Any other version is kept as given.
 */
export function readableVersion(version: string): string {
  if (!version.startsWith("{")) return version;
  try {
    const build = JSON.parse(version) as { Version?: unknown; Main?: { Version?: unknown }; GoVersion?: unknown };
    const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
    const own = text(build.Version) ?? text(build.Main?.Version);
    const go = text(build.GoVersion);
    if (own === undefined) return go ?? version;
    return go ? `${own} (${go})` : own;
  } catch {
    return version;
  }
}

/** Completes the handshake: `initialized`, then the language's settings when it has any. */
export async function announceInitialized(connection: MessageConnection, language: LanguageServerConfig) {
  await connection.sendNotification(InitializedNotification.type, {});
  if (language.settings) {
    await connection.sendNotification(DidChangeConfigurationNotification.type, { settings: language.settings });
  }
}

export interface ServerLoadingHost {
  readonly options: Pick<SessionSettings, "language" | "root" | "onLog">;
  readonly progress: ProgressTracker;
  /** Sends the readiness probe's `workspace/symbol` requests. */
  readonly channel: Pick<RequestChannel, "send">;
  /** False once the session failed or closed: the readiness probe stops. */
  isAlive(): boolean;
  /** Loading was found over or given up: the session's state may have changed. */
  onChange(): void;
}

/**
 * What the language says its server reports while it loads the workspace, expected in `progress`
 * (the session counts as indexing meanwhile): with indexProgress, the server's index has begun and
 * ended once, where a project database makes it index (without one, every answer says what is
 * missing); with readinessProbe, the probe found the name it looks for.
 */
export class ServerLoading {
  /** indexProgress: no project database (the language's note), set by start(). */
  private missingNote: string | undefined;
  /** indexProgress: the index did not start within its start timeout. */
  private late = false;
  /** indexProgress: the missing database was found since (databaseAppeared), and when it was last looked for. */
  private appeared: string | undefined;
  private databaseCheckedAt = Date.now();
  private indexStartTimer: NodeJS.Timeout | undefined;

  constructor(private readonly host: ServerLoadingHost) {}

  /** After the handshake: starts the readiness probe and expects the index, as the language says. */
  start(): void {
    this.startReadinessProbe();
    this.expectIndex();
  }

  /** Why every answer may be incomplete while this server runs (no project database, an index that never started), or undefined. */
  get incompleteNote(): string | undefined {
    const failure = this.host.progress.failure;
    // The server could not load the workspace (or part of it): what it answers covers the rest.
    if (failure) {
      const said = sanitizeServerMessage(failure, this.host.options.root);
      return `the ${this.host.options.language.id} server reports "${said}": answers may be incomplete`;
    }
    const index = this.host.options.language.indexProgress;
    if (!index) return undefined;
    if (this.missingNote) {
      const appeared = this.databaseAppeared();
      return appeared ? databaseAppearedNote(appeared) : this.missingNote;
    }
    if (this.late && !this.host.progress.hasBegun(index.title))
      return `${index.label} after ${(index.startTimeoutMs ?? DEFAULT_INDEX_START_TIMEOUT_MS) / 1000} s (its project database may name files outside the workspace, or the machine is too busy for it): answers cover the files opened so far`;
    return undefined;
  }

  /**
   * A project database that was missing when the server started is there now (a build generated
   * it meanwhile). Checked at most once a second; once seen, it stays seen.
   */
  private databaseAppeared(): string | undefined {
    if (this.appeared) return this.appeared;
    const now = Date.now();
    if (now - this.databaseCheckedAt < DATABASE_RECHECK_MS) return undefined;
    this.databaseCheckedAt = now;
    const { language, root } = this.host.options;
    this.appeared = language.indexProgress?.databases.find((file) => isFile(resolve(root, file)));
    return this.appeared;
  }

  /** Stops waiting for the index to start. Idempotent. */
  close(): void {
    clearTimeout(this.indexStartTimer);
  }

  private expectIndex(): void {
    const { options, progress } = this.host;
    const index = options.language.indexProgress;
    if (!index) return;
    if (!index.databases.some((file) => isFile(resolve(options.root, file)))) {
      this.missingNote = index.missingNote;
      return;
    }
    progress.expect(index.title, index.label);
    // A database naming files elsewhere (a moved checkout) never starts the index: stop making
    // every call wait for it, and say so instead until it does start.
    const timeoutMs = index.startTimeoutMs ?? DEFAULT_INDEX_START_TIMEOUT_MS;
    this.indexStartTimer = setTimeout(() => {
      if (!progress.cancelExpectation(index.title)) return;
      this.late = true;
      options.onLog?.(`${index.label} after ${timeoutMs} ms; answers are labelled partial until it starts`);
      this.host.onChange();
    }, timeoutMs);
    this.indexStartTimer.unref();
  }

  /** With a readinessProbe, the session counts as indexing until the probe finds its name. */
  private startReadinessProbe(): void {
    const { options, progress, channel } = this.host;
    const { language } = options;
    if (language.readinessProbe !== "workspaceSymbol") return;
    const token = "lspmesh/readiness";
    progress.create(token);
    progress.update(token, { kind: "begin", title: "analysing the workspace" });
    const timeoutMs = DEFAULT_READINESS_TIMEOUT_MS;
    const requestTimeoutMs = language.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const target = {
      request: (type: typeof WorkspaceSymbolRequest.type, params: { query: string }) =>
        channel.send(type.method, params, { timeoutMs: requestTimeoutMs }),
      isAlive: () => this.host.isAlive(),
    };
    void (async () => {
      const name = await declaredName(options.root, Object.keys(language.extensions), language.includeConfig);
      if (!name) return;
      const found = await probeUntilFound(target, name, timeoutMs);
      if (!found && target.isAlive())
        options.onLog?.(`readiness probe gave up after ${timeoutMs} ms: ${name} not found`);
    })()
      .catch(() => {})
      .finally(() => {
        progress.update(token, { kind: "end" });
        this.host.onChange();
      });
  }
}

/** How often a missing project database is looked for again, ms. */
const DATABASE_RECHECK_MS = 1_000;

/**
 * Why answers stay incomplete after a project database appeared while the server ran: the server
 * built the files it had open with guessed flags (clangd keeps them until they change), and the
 * session never waited for the index it may start now. A restart starts from the database.
 */
function databaseAppearedNote(database: string): string {
  return `${database} appeared after the language server started: the files it opened before keep guessed flags and its index may be incomplete; call restart_language_server to load it`;
}

/** Followed: a compile_commands.json linked to build/ is the usual setup (stat opens nothing). */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
