// One language server for one (tenant, workspace, language): starts it and completes the
// handshake, sends requests with timeouts and cancellation, and notices when its server fails
// (exits, stops answering, breaks the protocol) and reports it once; starting a replacement is the
// session manager's job (pool/sessionSlot.ts). What the server asks of its client is answered in
// serverRequests.ts; open documents are kept in sync with the disk by documentSync.ts.

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Message } from "vscode-jsonrpc/node.js";
import {
  CancellationTokenSource,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  DocumentDiagnosticRequest,
  ErrorCodes,
  ExecuteCommandRequest,
  type FileEvent,
  InitializedNotification,
  InitializeRequest,
  type InitializeResult,
  type NotificationType,
  type PublishDiagnosticsParams,
  type RequestType,
  ResponseError,
  type ServerCapabilities,
  type WorkspaceSymbolRequest,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../../errors.js";
import type { ResolvedFile } from "../../workspace/workspacePaths.js";
import type { OpenDocument } from "../documents/openDocument.js";
import { OpenDocuments } from "../documents/openDocuments.js";
import type { LanguageServerConfig } from "../languages/languageRegistry.js";
import { LanguageServerProcess } from "../process/languageServerProcess.js";
import type { FramingProblem } from "../process/messageSizeGuard.js";
import { ProcessTreeWatch } from "../process/processTreeWatch.js";
import type { Sandbox } from "../process/sandbox.js";
import type { ChildLimits } from "../process/serverLaunch.js";
import { assertServerInstalled } from "../process/serverStartFailure.js";
import { CapabilityRegistrations } from "./capabilityRegistrations.js";
import { CLIENT_CAPABILITIES } from "./clientCapabilities.js";
import { DiagnosticsStore, type StoredDiagnostics } from "./diagnosticsStore.js";
import { DocumentSync, type SyncOptions } from "./documentSync.js";
import type { PositionEncoding } from "./positionEncoding.js";
import { DEFAULT_READINESS_TIMEOUT_MS, declaredName, probeUntilFound } from "./readinessProbe.js";
import { requestTimeoutMs } from "./requestDeadline.js";
import { isRetryable, SERVER_ERROR_RETRY_DELAYS_MS, serverAnswerError } from "./serverErrors.js";
import { answerServerRequests } from "./serverRequests.js";
import { ProgressTracker, type ServerStateName, sessionState } from "./sessionState.js";
import { TSSERVER_REQUEST_COMMAND } from "./tsserverDiagnostics.js";

/** What a language session tells its owner, so that other layers (status and diagnostics
 * publishing, workspace watching) can follow it without the session knowing about them. */
export type SessionEvent =
  /** The state changed (the first one, "starting", is told when the session is created). */
  | { type: "state"; session: LanguageSession; state: ServerStateName }
  /** New diagnostics were recorded for an open document (pushed or pulled). */
  | { type: "diagnostics"; session: LanguageSession; uri: string; stored: StoredDiagnostics }
  /** The session was closed; its server is stopped. Told once. */
  | { type: "closed"; session: LanguageSession };

/** Receives session events; must not throw (errors are swallowed to protect the session). */
export type SessionEventListener = (event: SessionEvent) => void;

/** How long an awaited index (indexProgress) may take to start before calls stop waiting for it, ms (60 000). */
const DEFAULT_INDEX_START_TIMEOUT_MS = 60_000;
/** Files larger than this (bytes) are refused rather than sent to a server (default 4 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_START_TIMEOUT_MS = 60_000;
const DEFAULT_DIAGNOSTICS_SETTLE_MS = 300;
/** Liveness probe timeout after a request timed out, ms (default 5 000). */
export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
/** Requests in a row that may time out while the probe still answers, before a restart (default 3). */
export const DEFAULT_MAX_CONSECUTIVE_TIMEOUTS = 3;
/** Lines of server stderr kept for "last error" (default 20). */
const STDERR_LINES_KEPT = 20;
/**
 * The liveness probe. LSP 3.17 ("$ Notifications and Requests") requires a server to answer a
 * request whose method starts with `$/` and that it does not know with a MethodNotFound error, so
 * any answer — that error included — proves the server's message loop is alive. It needs no open
 * document, costs the server nothing and works for every server, whatever its capabilities.
 */
export const LIVENESS_PROBE_METHOD = "$/lspmesh/ping";

export interface SessionOptions {
  language: LanguageServerConfig;
  /** Real path of the workspace root. */
  root: string;
  maxFileBytes?: number;
  maxOpenDocuments?: number;
  /** Largest message read from the server, in bytes (default 64 MiB). */
  maxMessageBytes?: number;
  probeTimeoutMs?: number;
  maxConsecutiveTimeouts?: number;
  /** A stopped process in the server's tree fails the session (default true). */
  restartStoppedServers?: boolean;
  limits?: ChildLimits;
  parentWatchdog?: boolean;
  /** The runner's sandbox; the server runs in it unless its language says `sandbox: "none"`. */
  sandbox?: Sandbox;
  onLog?: (line: string) => void;
  /** Sees every message written to the server (tracing and tests). */
  onOutgoing?: (message: Message) => void;
  /** State changes, recorded diagnostics, close. */
  onEvent?: SessionEventListener;
  /** Called once when the server fails on its own (not when the session is closed). */
  onFailure?: (failure: SessionFailure, session: LanguageSession) => void;
}

/** Why a server can no longer be used; `code` is what requests to it fail with. */
export interface SessionFailure {
  /** TIMEOUT for a server that stopped answering (hung, stopped), UNAVAILABLE for one that is gone. */
  code: "UNAVAILABLE" | "SERVER_FAILED" | "TIMEOUT";
  /** Completes "the <language> language server …", e.g. "exited unexpectedly (SIGKILL)". */
  reason: string;
}

export class LanguageSession {
  readonly diagnostics = new DiagnosticsStore();
  readonly progress = new ProgressTracker();
  /** Capabilities the server registered at run time (file watchers, pull diagnostics). */
  readonly registrations = new CapabilityRegistrations();
  readonly language: LanguageServerConfig;
  readonly startedAt = Date.now();
  /** Last time a request was made through this session (ms since epoch). */
  lastUsed = Date.now();
  private readonly process: LanguageServerProcess;
  private readonly documents: OpenDocuments;
  private readonly sync: DocumentSync;
  private lastState: ServerStateName | undefined;
  private readonly stderrTail: string[] = [];
  private initialized = false;
  /** indexProgress: no project database (the note), or the index did not start in time. */
  private indexMissing: string | undefined;
  private indexStartTimer: NodeJS.Timeout | undefined;
  private indexLate = false;
  /** The server answered a request since it started ("ready" needs one answer). */
  private answered = false;
  private closed = false;
  private failureValue: SessionFailure | undefined;
  /**
   * Told once when the session fails or closes: each request (and wait) adds its own listener and
   * removes it when done. (Racing every request against one long-lived promise instead left a
   * reaction on it per request, keeping every answer reachable: the runner's memory grew by
   * about 25 MB a minute under load.)
   */
  private readonly failureListeners = new Set<(error: RunnerError) => void>();
  /** Requests, syncs and waits under way: a busy session is never stopped to save memory. */
  private busyCount = 0;
  /**
   * Counts changes to what the server knows of the workspace (documents opened, changed or closed,
   * file events, files renamed or deleted): an answer stays valid while it is unchanged.
   */
  contentEpoch = 0;
  private consecutiveTimeouts = 0;
  /** A request timed out and the server has not answered one since. */
  private suspect = false;
  private liveness: Promise<void> | undefined;
  private treeWatch: ProcessTreeWatch | undefined;
  capabilities: ServerCapabilities = {};
  encoding: PositionEncoding = "utf-16";
  serverName = "";

  /** The server runs in the runner's sandbox (its own pid namespace). */
  private readonly sandboxed: boolean;

  private constructor(private readonly options: SessionOptions) {
    this.sandboxed = Boolean(options.sandbox && options.language.sandbox !== "none");
    this.language = options.language;
    this.documents = new OpenDocuments(options.maxOpenDocuments);
    this.process = new LanguageServerProcess({
      command: options.language.command,
      args: options.language.args,
      cwd: options.root,
      env: options.language.env,
      maxMessageBytes: options.maxMessageBytes,
      limits: options.limits,
      parentWatchdog: options.parentWatchdog,
      // A language requiring the sandbox where there is none was refused by the slot.
      ...(this.sandboxed ? { sandbox: options.sandbox, sandboxReadOnly: options.language.sandboxReadOnly } : {}),
      onOutgoing: options.onOutgoing,
      onStderr: (line) => {
        this.stderrTail.push(line);
        if (this.stderrTail.length > STDERR_LINES_KEPT) this.stderrTail.shift();
        options.onLog?.(line);
      },
      onFramingProblem: (problem) => this.fail(framingFailure(problem), { stop: true }),
    });
    void this.process.exited.then(({ code, signal }) => {
      if (this.closed) return;
      const how = signal ? `signal ${signal}` : `exit code ${code}`;
      // Exiting during start is likely to repeat (installation, configuration): SERVER_FAILED.
      // Afterwards it is a crash the next request recovers from: UNAVAILABLE.
      this.fail(
        this.initialized
          ? { code: "UNAVAILABLE", reason: `exited unexpectedly (${how})` }
          : { code: "SERVER_FAILED", reason: `exited during start (${how})` },
      );
      this.emitStateChange();
    });
    this.sync = new DocumentSync({
      documents: this.documents,
      diagnostics: this.diagnostics,
      connection: this.process.connection,
      maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      isRunning: () => this.process.isRunning,
      assertUsable: () => this.assertUsable(),
      roundTrip: () =>
        this.send(LIVENESS_PROBE_METHOD, null, this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, undefined, {
          checkLiveness: false,
        }).then(
          () => undefined,
          () => undefined,
        ),
      onContentChange: () => this.contentEpoch++,
    });
    answerServerRequests(this.process.connection, {
      settings: this.language.settings ?? {},
      rootUri: this.rootUri,
      progress: this.progress,
      registrations: this.registrations,
      onDiagnostics: (params) => this.recordPushedDiagnostics(params),
      onLog: (message) => options.onLog?.(message),
      onProgress: () => this.emitStateChange(),
    });
    this.diagnostics.onRecord((uri, stored) => this.emit({ type: "diagnostics", session: this, uri, stored }));
    this.emitStateChange();
  }

  /** Starts the server and completes the initialize handshake. */
  static async start(options: SessionOptions): Promise<LanguageSession> {
    assertServerInstalled(options.language);
    const session = new LanguageSession(options);
    try {
      await session.initialize();
      return session;
    } catch (error) {
      // The handshake failing is the server failing (unless it already said how).
      if (!session.failureValue && !session.closed) {
        const timeoutMs = options.language.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
        const reason =
          error instanceof RunnerError && error.code === "TIMEOUT"
            ? `did not answer initialize within ${timeoutMs} ms`
            : `did not start (${(error as Error).message ?? String(error)})`;
        session.fail({ code: "SERVER_FAILED", reason }, { stop: true });
      }
      await session.close();
      throw session.failureValue ? session.failureError() : session.stoppedError();
    }
  }

  get state(): ServerStateName {
    return sessionState({
      failed: this.failureValue !== undefined,
      initialized: this.initialized,
      indexing: this.progress.busy,
      answered: this.answered,
      suspect: this.suspect,
    });
  }

  /** Usable for new requests: running, not failed, not closed. */
  get isAlive(): boolean {
    return !this.closed && !this.failureValue && this.process.isRunning;
  }

  get failure(): SessionFailure | undefined {
    return this.failureValue;
  }

  /** Requests, syncs or waits under way right now. */
  get isBusy(): boolean {
    return this.busyCount > 0;
  }

  /** The liveness check under way after a timeout, if any (resolves when it is decided). */
  get livenessCheck(): Promise<void> | undefined {
    return this.liveness;
  }

  /** The server's pid, which is also its process-group id. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** The failure with the last lines the server wrote to stderr; "" while healthy. */
  get lastError(): string {
    if (!this.failureValue) return "";
    const tail = this.stderrTail.slice(-3).join(" | ");
    return `${this.failureValue.reason}${tail ? `; stderr: ${tail}` : ""}`;
  }

  get openDocumentCount(): number {
    return this.documents.size;
  }

  /** Real path of the workspace root this server serves. */
  get root(): string {
    return this.options.root;
  }

  private get rootUri(): string {
    return pathToFileURL(this.options.root).href;
  }

  /** Pushed diagnostics are kept for open documents only: their version and content are known. */
  private recordPushedDiagnostics(params: PublishDiagnosticsParams): void {
    // What a server pushes for a closed document (often an empty list on didClose) says nothing about the file.
    const document = this.documents.peek(params.uri);
    if (!document) return;
    this.answered = true; // diagnostics are the server's answer to didOpen/didChange
    const version = params.version ?? document.version;
    this.diagnostics.record(params.uri, params.diagnostics, version, version === document.version ? document.hash : "");
    this.emitStateChange();
  }

  private async initialize(): Promise<void> {
    const result = await this.send<InitializeResult>(
      InitializeRequest.method,
      {
        // Servers that watch their parent exit when the runner dies. In the sandbox's pid namespace
        // the runner's pid does not exist (the server would exit at its first check): null there,
        // where the watchdog and bwrap's --die-with-parent end the server with the runner.
        processId: this.sandboxed ? null : process.pid,
        clientInfo: { name: "lspmesh" },
        rootUri: this.rootUri,
        rootPath: this.options.root,
        workspaceFolders: [{ uri: this.rootUri, name: "workspace" }],
        capabilities: CLIENT_CAPABILITIES,
        initializationOptions: this.language.initializationOptions,
      },
      this.language.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      undefined,
      { checkLiveness: false },
    );
    this.capabilities = result.capabilities;
    const negotiated = result.capabilities.positionEncoding;
    this.encoding = negotiated === "utf-8" || negotiated === "utf-32" ? negotiated : "utf-16";
    const info = result.serverInfo;
    this.serverName =
      info?.name && info.version
        ? `${info.name} ${info.version}`
        : (this.language.serverDescription ??
          [info?.name ?? this.language.id, info?.version].filter(Boolean).join(" "));
    await this.process.connection.sendNotification(InitializedNotification.type, {});
    if (this.language.settings) {
      await this.process.connection.sendNotification(DidChangeConfigurationNotification.type, {
        settings: this.language.settings,
      });
    }
    this.initialized = true;
    this.watchProcessTree();
    this.startReadinessProbe();
    this.expectIndex();
    this.emitStateChange();
  }

  /**
   * With indexProgress: indexing until the server's index has begun and ended once, where a
   * project database makes it index; without one, every answer says what is missing.
   */
  private expectIndex(): void {
    const index = this.language.indexProgress;
    if (!index) return;
    const found = index.databases.some((file) => {
      try {
        // Followed: a compile_commands.json linked to build/ is the usual setup (stat opens nothing).
        return statSync(resolve(this.options.root, file)).isFile();
      } catch {
        return false;
      }
    });
    if (!found) {
      this.indexMissing = index.missingNote;
      return;
    }
    this.progress.expect(index.title, index.label);
    // A database naming files elsewhere (a moved checkout) never starts the index: stop making
    // every call wait for it, and say so instead until it does start.
    const timeoutMs = index.startTimeoutMs ?? DEFAULT_INDEX_START_TIMEOUT_MS;
    this.indexStartTimer = setTimeout(() => {
      if (!this.progress.cancelExpectation(index.title)) return;
      this.indexLate = true;
      this.options.onLog?.(`${index.label} after ${timeoutMs} ms; answers are labelled partial until it starts`);
      this.emitStateChange();
    }, timeoutMs);
    this.indexStartTimer.unref();
  }

  /** Why every answer may be incomplete while this server runs (no project database, an index that never started), or undefined. */
  get incompleteNote(): string | undefined {
    const index = this.language.indexProgress;
    if (!index) return undefined;
    if (this.indexMissing) return this.indexMissing;
    if (this.indexLate && !this.progress.hasBegun(index.title))
      return `${index.label} after ${(index.startTimeoutMs ?? DEFAULT_INDEX_START_TIMEOUT_MS) / 1000} s (its project database may name files outside the workspace, or the machine is too busy for it): answers cover the files opened so far`;
    return undefined;
  }

  /** With a readinessProbe, the session counts as indexing until the probe finds its name. */
  private startReadinessProbe(): void {
    if (this.language.readinessProbe !== "workspaceSymbol") return;
    const token = "lspmesh/readiness";
    this.progress.create(token);
    this.progress.update(token, { kind: "begin", title: "analysing the workspace" });
    const timeoutMs = DEFAULT_READINESS_TIMEOUT_MS;
    void (async () => {
      const name = await declaredName(this.options.root, Object.keys(this.language.extensions));
      if (!name) return;
      const target = {
        request: (type: typeof WorkspaceSymbolRequest.type, params: { query: string }) =>
          this.send(type.method, params, this.language.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
        isAlive: () => this.isAlive,
      };
      const found = await probeUntilFound(target, name, timeoutMs);
      if (!found && this.isAlive)
        this.options.onLog?.(`readiness probe gave up after ${timeoutMs} ms: ${name} not found`);
    })()
      .catch(() => {})
      .finally(() => {
        this.progress.update(token, { kind: "end" });
        this.emitStateChange();
      });
  }

  /**
   * A stopped process in the server's tree fails the session (TIMEOUT: it would never answer);
   * with `watchProcessTree`, so does a long-lived process of the tree dying.
   */
  private watchProcessTree(): void {
    const pid = this.process.pid;
    if (pid === undefined) return;
    const watchStopped = this.options.restartStoppedServers ?? true;
    if (!watchStopped && !this.language.watchProcessTree) return;
    this.treeWatch = new ProcessTreeWatch(pid, {
      onStopped: !watchStopped
        ? undefined
        : (stopped) =>
            this.fail(
              {
                code: "TIMEOUT",
                reason: `stopped answering: ${stopped.name} (pid ${stopped.pid}) was stopped (SIGSTOP or a debugger) and has been killed`,
              },
              { stop: true },
            ),
      onLoss: this.language.watchProcessTree
        ? (lost) =>
            this.fail(
              {
                code: "UNAVAILABLE",
                reason: `lost a process of its tree (${lost.name}, pid ${lost.pid}) and was restarted`,
              },
              { stop: true },
            )
        : undefined,
    });
    this.treeWatch.start();
  }

  /**
   * Before an empty answer is believed: is the server's process tree whole? Throws the session's
   * failure when a process of it died (the answer came from a server missing its engine).
   */
  async checkProcessTree(): Promise<void> {
    await this.treeWatch?.check();
    if (this.failureValue) throw this.failureError();
  }

  /**
   * Makes the server's copy of a file equal to the disk: didOpen the first time (or again after it
   * was closed to stay under the cap), didChange (full text, increasing version) when the content
   * changed since.
   */
  async syncDocument(file: ResolvedFile, languageId: string, options?: SyncOptions): Promise<OpenDocument> {
    return this.busy(() => this.sync.sync(file, languageId, options));
  }

  document(uri: string): OpenDocument | undefined {
    return this.documents.peek(uri);
  }

  /** Open documents, least recently used first. */
  openDocuments(): OpenDocument[] {
    return this.documents.all();
  }

  /**
   * Reopens an open document with the same text so that the server checks it again and pushes
   * its diagnostics (see DocumentSync.recheck). Returns the reopened document, or undefined.
   */
  recheckDocument(uri: string): Promise<OpenDocument | undefined> {
    return this.busy(() => this.sync.recheck(uri));
  }

  /** didClose for an open document (its file was renamed or deleted, or it is no longer needed). */
  closeDocument(uri: string): Promise<boolean> {
    return this.sync.close(uri);
  }

  /**
   * Tells the server that files changed on disk (`workspace/didChangeWatchedFiles`): the events
   * its registered watchers ask for, or every event when it registered none. Returns how many
   * were sent; sending any counts as a workspace change for diagnostics freshness.
   */
  async didChangeWatchedFiles(events: readonly FileEvent[]): Promise<number> {
    // Even events the server does not ask for count: a server may watch files by itself (tsserver).
    if (events.length > 0) this.contentEpoch++;
    const registered = this.registrations.watchesFiles;
    const wanted = registered ? this.registrations.wanted(events) : [...events];
    if (wanted.length === 0 || !this.process.isRunning || !this.initialized) return 0;
    // Without registered watchers, only files of this language are taken to affect diagnostics.
    const extensions = Object.keys(this.language.extensions);
    if (registered || wanted.some((event) => extensions.some((extension) => event.uri.endsWith(extension)))) {
      this.diagnostics.noteChange();
    }
    await this.process.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: wanted });
    return wanted.length;
  }

  /** Whether diagnostics are pulled (`textDocument/diagnostic`) rather than waited for. */
  get pullsDiagnostics(): boolean {
    return Boolean(this.capabilities.diagnosticProvider) || this.registrations.has(DocumentDiagnosticRequest.method);
  }

  /** Sends a notification (`DidChangeWatchedFilesNotification.type`, …). */
  async notify<P>(type: NotificationType<P> | string, params: P): Promise<void> {
    this.contentEpoch++;
    if (!this.process.isRunning) return;
    await this.process.connection.sendNotification(typeof type === "string" ? type : type.method, params);
  }

  /**
   * Sends a request (`DefinitionRequest.type`, …) with the language's timeout; a timeout or abort
   * cancels it ($/cancelRequest). The string form is for methods the protocol package lacks.
   */
  request<P, R>(type: RequestType<P, R, unknown>, params: P, signal?: AbortSignal): Promise<R>;
  request<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R>;
  async request<R>(type: RequestType<unknown, R, unknown> | string, params: unknown, signal?: AbortSignal): Promise<R> {
    const method = typeof type === "string" ? type : type.method;
    const languageTimeoutMs = this.language.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const probeMs = this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    for (let attempt = 0; ; attempt++) {
      const timeoutMs = requestTimeoutMs(signal, languageTimeoutMs, probeMs);
      try {
        // Only a request given the language's whole timeout counts towards maxConsecutiveTimeouts:
        // a caller's short deadline says nothing about the server.
        return await this.send<R>(method, params, timeoutMs, signal, { countTimeout: timeoutMs >= languageTimeoutMs });
      } catch (error) {
        if (!(error instanceof ResponseError)) throw error;
        // Content modified or cancelled by the server: the same question has an answer a moment later.
        const pause = SERVER_ERROR_RETRY_DELAYS_MS[attempt];
        if (isRetryable(error) && pause !== undefined && !signal?.aborted) {
          await delay(pause);
          continue;
        }
        throw serverAnswerError(this.language.id, method, error, this.options.root);
      }
    }
  }

  private async send<R>(
    method: string,
    params: unknown,
    timeoutMs: number,
    signal?: AbortSignal,
    { checkLiveness = true, isProbe = false, countTimeout = true } = {},
  ): Promise<R> {
    this.assertUsable();
    // Cancelling sends $/cancelRequest but does not end the pending request (vscode-jsonrpc waits
    // for the server's answer, which a hung server never gives): `stopped` ends it on our side.
    const cancellation = new CancellationTokenSource();
    // Made now: cancel() on a source whose token was never asked for, once disposed, throws
    // (vscode-jsonrpc swaps in a frozen token) — a late timer or abort must never crash the runner.
    const token = cancellation.token;
    let stop: (reason: Error) => void = () => {};
    const stopped = new Promise<never>((_, reject) => {
      stop = reject;
    });
    // Only the race below reads it; a failure told before the race (sendRequest throwing on a
    // dead connection) must not surface as an unhandled rejection.
    stopped.catch(() => {});
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      cancellation.cancel();
      stop(new Error("timeout"));
    }, timeoutMs);
    const onAbort = () => {
      cancellation.cancel();
      stop(new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();
    // A server that dies leaves its pending requests unanswered: the failure ends them.
    this.failureListeners.add(stop);
    this.busyCount++;
    this.lastUsed = Date.now();
    try {
      const pending = this.process.connection.sendRequest(method, params, token);
      // Settles later (answer to a cancelled request, or disposal) with no one waiting.
      pending.catch(() => {});
      const answer = (await Promise.race([pending, stopped])) as R;
      if (!isProbe) this.heardFrom(method);
      return answer;
    } catch (error) {
      // The connection broke under the request (a write to a killed server, a disposed connection):
      // the server is dying, and its exit, told a moment later, is the answer to give.
      if (!this.failureValue && isConnectionFailure(error)) {
        await this.failedWithin(EXIT_REPORT_WAIT_MS);
      }
      if (this.failureValue) throw this.failureError();
      if (timedOut) {
        if (checkLiveness) this.checkLiveness(method, timeoutMs, countTimeout);
        throw new RunnerError(
          "TIMEOUT",
          `the ${this.language.id} language server did not answer ${method} within ${timeoutMs} ms; try again, or narrow the request`,
        );
      }
      if (signal?.aborted) throw new RunnerError("TIMEOUT", `${method} was cancelled by the caller`);
      if (this.closed) throw this.stoppedError();
      // The server answered, with an error: it is alive.
      if (!isProbe) this.heardFrom(method);
      throw error;
    } finally {
      this.busyCount--;
      this.failureListeners.delete(stop);
      this.emitStateChange();
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      cancellation.dispose();
    }
  }

  private heardFrom(method: string): void {
    if (method === LIVENESS_PROBE_METHOD || method === InitializeRequest.method) return;
    this.answered = true;
    this.suspect = false;
    this.consecutiveTimeouts = 0;
  }

  /**
   * After a timeout: is the server still there? A liveness probe with a short timeout decides; a
   * server that misses it, or that answers the probe but let too many requests in a row time out,
   * is failed (and stopped), so the next request gets a new one.
   */
  private checkLiveness(method: string, timeoutMs: number, countTimeout: boolean): void {
    if (countTimeout) this.consecutiveTimeouts++;
    this.suspect = true;
    if (this.liveness || this.failureValue || this.closed) return;
    const probeMs = this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    const maxTimeouts = this.options.maxConsecutiveTimeouts ?? DEFAULT_MAX_CONSECUTIVE_TIMEOUTS;
    this.liveness = (async () => {
      const [probeMethod, probeParams] = this.livenessProbe();
      const alive = await this.send(probeMethod, probeParams, probeMs, undefined, {
        checkLiveness: false,
        isProbe: true,
      }).then(
        () => true,
        // Any answer, an error included (most servers do not know the probe's method), is a sign of life.
        (error: unknown) => error instanceof ResponseError && !isConnectionFailure(error) && !this.failureValue,
      );
      if (!alive) {
        this.fail(
          {
            code: "TIMEOUT",
            reason: `stopped answering (${method} timed out after ${timeoutMs} ms and a liveness probe got no answer within ${probeMs} ms)`,
          },
          { stop: true },
        );
      } else if (this.consecutiveTimeouts >= maxTimeouts) {
        this.fail(
          { code: "UNAVAILABLE", reason: `let ${this.consecutiveTimeouts} requests in a row time out` },
          { stop: true },
        );
      }
    })().finally(() => {
      this.liveness = undefined;
    });
  }

  /**
   * The request that proves the server's message loop alive. typescript-language-server answers
   * `$/` requests itself, whatever its tsserver does, so for it the probe is tsserver's own cheap
   * `status` command, which goes to the tsserver that answers semantic requests.
   */
  private livenessProbe(): [method: string, params: unknown] {
    if (this.language.diagnosticsPull === "tsserverRequest") {
      return [ExecuteCommandRequest.method, { command: TSSERVER_REQUEST_COMMAND, arguments: ["status", {}] }];
    }
    return [LIVENESS_PROBE_METHOD, null];
  }

  private tellFailure(error: RunnerError): void {
    const listeners = [...this.failureListeners];
    this.failureListeners.clear();
    for (const listener of listeners) listener(error);
  }

  /** Resolves when the session fails or closes, or after ms, whichever comes first. */
  private failedWithin(ms: number): Promise<void> {
    if (this.failureValue || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.failureListeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.failureListeners.add(done);
    });
  }

  /** Records the first failure, ends pending requests with it, and stops a server still running. */
  private fail(failure: SessionFailure, { stop = false } = {}): void {
    if (this.failureValue || this.closed) return;
    this.treeWatch?.close();
    this.failureValue = failure;
    this.tellFailure(this.failureError());
    // A server that stopped answering or broke the framing will not answer `shutdown` either.
    if (stop) void this.process.close({ polite: false });
    this.options.onFailure?.(failure, this);
    this.emitStateChange();
  }

  private assertUsable(): void {
    if (this.failureValue) throw this.failureError();
    if (this.closed) throw this.stoppedError();
  }

  private failureError(): RunnerError {
    const failure = this.failureValue ?? { code: "UNAVAILABLE", reason: "is not running" };
    // What a server said on stderr before failing to start is usually the reason.
    const detail = this.initialized ? failure.reason : this.lastError || failure.reason;
    return new RunnerError(
      failure.code,
      `the ${this.language.id} language server ${detail}; the next request ${this.initialized ? "starts a new one" : "tries again"}`,
    );
  }

  private stoppedError(): RunnerError {
    return new RunnerError(
      "UNAVAILABLE",
      `the ${this.language.id} language server was stopped (idle, memory budget or shutdown); retry to start a new one`,
    );
  }

  private async busy<T>(work: () => Promise<T>): Promise<T> {
    this.busyCount++;
    this.lastUsed = Date.now();
    try {
      return await work();
    } finally {
      this.busyCount--;
    }
  }

  /** Resolves true once no work-done progress is open, false when timeoutMs passes first. */
  waitUntilIdle(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.busy(() => this.progress.waitIdle(timeoutMs, signal));
  }

  diagnosticsSettleMs(): number {
    return this.language.diagnosticsSettleMs ?? DEFAULT_DIAGNOSTICS_SETTLE_MS;
  }

  /** Stops the server with the shutdown ladder. Idempotent; onEvent hears "closed" once. */
  async close(): Promise<void> {
    const first = !this.closed;
    this.closed = true;
    clearTimeout(this.indexStartTimer);
    this.treeWatch?.close();
    this.tellFailure(this.failureValue ? this.failureError() : this.stoppedError());
    await this.process.close();
    if (first) this.emit({ type: "closed", session: this });
  }

  /** Tells onEvent when the state differs from the one last told. Called wherever it may change. */
  private emitStateChange(): void {
    const state = this.state;
    if (state === this.lastState) return;
    this.lastState = state;
    this.emit({ type: "state", session: this, state });
  }

  private emit(event: SessionEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // Listeners must not break the session.
    }
  }
}

function framingFailure(problem: FramingProblem): SessionFailure {
  if (problem.kind === "oversized") {
    return {
      code: "SERVER_FAILED",
      reason: `sent a message of ${mib(problem.bytes)}, over the ${mib(problem.limit)} limit for one message, and was stopped (narrow the request, or raise maxMessageBytes)`,
    };
  }
  return { code: "SERVER_FAILED", reason: `broke the LSP framing (${problem.detail}) and was stopped` };
}

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(bytes < 1048576 ? 3 : 1)} MiB`;
}

/** How long a request whose connection broke waits for the server's exit to be reported, in ms. */
const EXIT_REPORT_WAIT_MS = 1000;

const CONNECTION_ERROR_CODES = new Set<number>([
  ErrorCodes.MessageWriteError,
  ErrorCodes.MessageReadError,
  ErrorCodes.PendingResponseRejected,
  ErrorCodes.ConnectionInactive,
]);

/** An error of the connection itself (vscode-jsonrpc's reserved codes, or not a response at all), not an answer. */
function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof ResponseError)) return true;
  return CONNECTION_ERROR_CODES.has(error.code);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
