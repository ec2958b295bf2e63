// One language server for one (tenant, workspace, language): starts it and completes the handshake
// (serverHandshake.ts), sends requests with timeouts and cancellation (requestChannel.ts), notices
// its server failing (exit, protocol, no answer) and reports it once (sessionHealth.ts; replacing
// it: pool/sessionSlot.ts). Server requests: serverRequests.ts; its view of files: serverDocuments.ts.

import {
  DocumentDiagnosticRequest,
  type FileEvent,
  InitializeRequest,
  type InitializeResult,
  type NotificationType,
  type RequestType,
  type ServerCapabilities,
} from "vscode-languageserver-protocol";
import type { ResolvedFile } from "../../workspace/workspacePaths.js";
import type { OpenDocument } from "../documents/openDocument.js";
import type { LanguageServerConfig } from "../languages/languageRegistry.js";
import type { LanguageServerProcess } from "../process/languageServerProcess.js";
import { assertServerInstalled } from "../process/serverStartFailure.js";
import { CapabilityRegistrations } from "./capabilityRegistrations.js";
import { DiagnosticsStore } from "./diagnosticsStore.js";
import type { SyncOptions } from "./documentSync.js";
import { changesLayout } from "./fileLayout.js";
import { OverlayGate } from "./overlayGate.js";
import type { PositionEncoding } from "./positionEncoding.js";
import { RequestChannel } from "./requestChannel.js";
import { ServerDocuments } from "./serverDocuments.js";
import * as handshake from "./serverHandshake.js";
import { launchServer } from "./serverLaunch.js";
import { answerServerRequests } from "./serverRequests.js";
import { exitFailure, type SessionFailure, startFailure } from "./sessionFailure.js";
import { SessionHealth } from "./sessionHealth.js";
import { runsSandboxed, type SessionEventOf, type SessionOptionsOf } from "./sessionOptions.js";
import { ProgressTracker, type ServerStateName, sessionState } from "./sessionState.js";

export { DEFAULT_MAX_FILE_BYTES } from "./serverDocuments.js";
export type { SessionFailure } from "./sessionFailure.js";
export { DEFAULT_MAX_CONSECUTIVE_TIMEOUTS, DEFAULT_PROBE_TIMEOUT_MS, LIVENESS_PROBE_METHOD } from "./sessionHealth.js";

/** What a language session tells its owner (state changes, recorded diagnostics, close). */
export type SessionEvent = SessionEventOf<LanguageSession>;
/** Receives session events; must not throw (errors are swallowed to protect the session). */
export type SessionEventListener = (event: SessionEvent) => void;
export type SessionOptions = SessionOptionsOf<LanguageSession>;

export class LanguageSession {
  readonly diagnostics = new DiagnosticsStore();
  readonly progress = new ProgressTracker();
  /** Capabilities the server registered at run time (file watchers, pull diagnostics). */
  readonly registrations = new CapabilityRegistrations();
  readonly language: LanguageServerConfig;
  readonly startedAt = Date.now();
  /** Last time a request was made through this session (ms since epoch). */
  lastUsed = Date.now();
  /** Counts changes to what the server knows of the workspace (documents, file events): answers stay valid while it holds. */
  contentEpoch = 0;
  /** contentEpoch without documents opened as they are on disk (then answers are re-asked: AnswerWarming). */
  contentChanges = 0;
  /** Advanced when files were created or deleted, or a project file changed: what projects hold may differ. */
  layoutEpoch = 0;
  capabilities: ServerCapabilities = {};
  encoding: PositionEncoding = "utf-16";
  serverName = "";
  private readonly process: LanguageServerProcess;
  private readonly health: SessionHealth;
  private readonly channel: RequestChannel;
  private readonly documents: ServerDocuments;
  private readonly loading: handshake.ServerLoading;
  readonly gate = new OverlayGate();
  private lastState: ServerStateName | undefined;
  private initialized = false;
  /** Requests, syncs and waits under way: a busy session is never stopped to save memory. */
  private busyCount = 0;

  private constructor(private readonly options: SessionOptions) {
    this.language = options.language;
    this.health = new SessionHealth({
      policy: options,
      isInitialized: () => this.initialized,
      probe: (method, params, timeoutMs) =>
        this.channel.send(method, params, { timeoutMs, checkLiveness: false, isProbe: true }),
      stopServer: () => void this.process.close({ polite: false }),
      onFailure: (failure) => {
        this.options.onFailure?.(failure, this);
        this.emitStateChange();
      },
    });
    this.process = launchServer(options, this.health);
    this.channel = new RequestChannel({
      connection: this.process.connection,
      language: options.language,
      root: options.root,
      health: this.health,
      onStart: () => {
        this.busyCount++;
        this.lastUsed = Date.now();
      },
      onEnd: () => {
        this.busyCount--;
        this.emitStateChange();
      },
    });
    const onChange = () => this.emitStateChange();
    this.documents = new ServerDocuments({
      options,
      process: this.process,
      channel: this.channel,
      health: this.health,
      diagnostics: this.diagnostics,
      registrations: this.registrations,
      isInitialized: () => this.initialized,
      onContentChange: (change) => {
        this.contentEpoch++;
        // gopls loads an opened file's package (a folder ./... skips): its answers change (openedPackages.ts).
        if (change !== "opened" || options.language.includeConfig === "go") this.contentChanges++;
        this.emit({ type: "content", session: this });
      },
      onChange,
    });
    const { progress, channel } = this;
    this.loading = new handshake.ServerLoading({ options, progress, channel, isAlive: () => this.isAlive, onChange });
    this.listen();
    this.emitStateChange();
  }

  /** Starts the server and completes the initialize handshake. */
  static async start(options: SessionOptions): Promise<LanguageSession> {
    assertServerInstalled(options.language, options.root);
    const session = new LanguageSession(options);
    try {
      await session.initialize();
      return session;
    } catch (error) {
      // The handshake failing is the server failing (unless it already said how: the first failure is kept).
      session.health.fail(startFailure(error, handshake.startTimeoutMs(options.language)), { stop: true });
      await session.close();
      throw session.health.failures.endError();
    }
  }

  /** Follows the server: its exit, what it asks of the client, the diagnostics recorded for it. */
  private listen(): void {
    const { options } = this;
    void this.process.exited.then((exit) => {
      if (this.health.failures.closed) return;
      this.health.fail(exitFailure(this.initialized, exit));
      this.emitStateChange();
    });
    answerServerRequests(this.process.connection, {
      settings: options.language.settings ?? {},
      rootUri: handshake.rootUriOf(options.root),
      progress: this.progress,
      progressIsIndexing: options.language.readinessProbe === undefined,
      registrations: this.registrations,
      onDiagnostics: (params) => this.documents.recordPushed(params),
      onLog: (message) => options.onLog?.(message),
      onProgress: () => this.emitStateChange(),
    });
    this.diagnostics.onRecord((uri, stored) => this.emit({ type: "diagnostics", session: this, uri, stored }));
  }

  private async initialize(): Promise<void> {
    const { language, root } = this.options;
    const result = await this.channel.send<InitializeResult>(
      InitializeRequest.method,
      handshake.initializeParams(language, root, runsSandboxed(this.options), this.options.clientCapabilities),
      { timeoutMs: handshake.startTimeoutMs(language), checkLiveness: false },
    );
    const server = handshake.negotiated(result, language);
    [this.capabilities, this.encoding, this.serverName] = [server.capabilities, server.encoding, server.serverName];
    await handshake.announceInitialized(this.process.connection, language);
    this.initialized = true;
    this.health.watchProcessTree(this.process.pid);
    this.loading.start();
    this.emitStateChange();
  }

  get state(): ServerStateName {
    return sessionState({
      failed: this.health.failures.failure !== undefined,
      initialized: this.initialized,
      indexing: this.progress.busy,
      answered: this.health.answered,
      suspect: this.health.suspect,
      reportsFailure: this.progress.failure !== "",
    });
  }

  /** Usable for new requests: running, not failed, not closed. */
  get isAlive(): boolean {
    return !this.health.failures.ended && this.process.isRunning;
  }

  get failure(): SessionFailure | undefined {
    return this.health.failures.failure;
  }

  /** Requests, syncs or waits under way right now. */
  get isBusy(): boolean {
    return this.busyCount > 0;
  }

  /** The liveness check under way after a timeout, if any (resolves when it is decided). */
  get livenessCheck(): Promise<void> | undefined {
    return this.health.pendingCheck;
  }

  /** The server's pid, which is also its process-group id. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** The failure with the last lines the server wrote to stderr; "" while healthy. */
  get lastError(): string {
    return this.health.failures.lastError;
  }

  get openDocumentCount(): number {
    return this.documents.size;
  }

  /** Real path of the workspace root this server serves. */
  get root(): string {
    return this.options.root;
  }

  /** Why every answer may be incomplete while this server runs (no project database, an index that never started), or undefined. */
  get incompleteNote(): string | undefined {
    return this.loading.incompleteNote;
  }

  /** Whether diagnostics are pulled (`textDocument/diagnostic`) rather than waited for. */
  get pullsDiagnostics(): boolean {
    return Boolean(this.capabilities.diagnosticProvider) || this.registrations.has(DocumentDiagnosticRequest.method);
  }

  /** Before an empty answer is believed: throws the session's failure when a process of its tree died. */
  checkProcessTree(): Promise<void> {
    return this.health.checkProcessTree();
  }

  /** Makes the server's copy of a file equal to the disk (didOpen, or didChange when it changed; DocumentSync.sync). */
  async syncDocument(file: ResolvedFile, languageId: string, options?: SyncOptions): Promise<OpenDocument> {
    return this.gate.shared(() => this.busy(() => this.documents.syncFile(file, languageId, options)));
  }

  /** Runs `work` with no other caller's sync or request in between (OverlayGate); it may lay unsaved text with overlayDocument. */
  exclusively<T>(work: () => Promise<T>): Promise<T> {
    return this.gate.exclusive(() => this.busy(work));
  }

  /** Unsaved text over an open document (DocumentSync.overlay); restored by syncDocument with reread. */
  overlayDocument(uri: string, text: string): Promise<OpenDocument | undefined> {
    return this.documents.overlay(uri, text);
  }

  document(uri: string): OpenDocument | undefined {
    return this.documents.peek(uri);
  }

  /** Open documents, least recently used first. */
  openDocuments(): OpenDocument[] {
    return this.documents.all();
  }

  /** Reopens an open document so that the server checks it again (DocumentSync.recheck); undefined if not open. */
  recheckDocument(uri: string): Promise<OpenDocument | undefined> {
    return this.gate.shared(() => this.busy(() => this.documents.recheck(uri)));
  }

  /** didClose for an open document (its file was renamed or deleted, or it is no longer needed). */
  closeDocument(uri: string): Promise<boolean> {
    return this.gate.shared(() => this.documents.closeDocument(uri));
  }

  /**
   * Tells the server of files changed on disk (those its watchers ask for); returns how many events
   * were sent. `synced`: URIs of open documents just synced with their files (ServerDocuments).
   */
  didChangeWatchedFiles(events: readonly FileEvent[], synced?: ReadonlySet<string>): Promise<number> {
    if (events.some(changesLayout)) this.layoutEpoch++;
    this.health.noteFileEvents();
    return this.documents.didChangeWatchedFiles(events, synced);
  }

  /** Sends a notification (`DidChangeWatchedFilesNotification.type`, …). */
  notify<P>(type: NotificationType<P> | string, params: P): Promise<void> {
    return this.documents.notify(type, params);
  }

  /** Sends a request with the language's timeout (a timeout or abort sends $/cancelRequest); strings for methods the protocol package lacks. */
  request<P, R>(type: RequestType<P, R, unknown>, params: P, signal?: AbortSignal): Promise<R>;
  request<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R>;
  request<R>(type: RequestType<unknown, R, unknown> | string, params: unknown, signal?: AbortSignal): Promise<R> {
    return this.gate.shared(() =>
      this.channel.request<R>(typeof type === "string" ? type : type.method, params, signal),
    );
  }

  /** Counts `work` (a caller waiting for diagnostics) as use: no stop for idleness, no background re-asks meanwhile. */
  inUse<T>(work: () => Promise<T>): Promise<T> {
    return this.busy(work);
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

  /** Stops the server with the shutdown ladder. Idempotent; onEvent hears "closed" once. */
  async close(): Promise<void> {
    this.loading.close();
    const first = this.health.close();
    await this.process.close();
    if (first) this.emit({ type: "closed", session: this });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
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
