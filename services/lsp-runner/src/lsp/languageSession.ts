// One language server for one (tenant, workspace, language): starts it, answers its requests,
// keeps documents in sync with the files on disk, and sends requests with timeouts.
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  CancellationTokenSource,
  type FileEvent,
  type InitializeResult,
  type PublishDiagnosticsParams,
  type Registration,
  type ServerCapabilities,
  type Unregistration,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import type { ResolvedFile } from "../workspace/workspacePaths.js";
import { CapabilityRegistrations } from "./capabilityRegistrations.js";
import { CLIENT_CAPABILITIES } from "./clientCapabilities.js";
import { DiagnosticsStore } from "./diagnosticsStore.js";
import type { LanguageServerConfig } from "./languageRegistry.js";
import { LanguageServerProcess } from "./languageServerProcess.js";
import { OpenDocument } from "./openDocument.js";
import type { PositionEncoding } from "./positionEncoding.js";
import type { SessionEvent, SessionEventListener } from "./sessionEvents.js";
import { ProgressTracker, type ServerStateName } from "./sessionState.js";
import { decodeDocument } from "./textDocument.js";

/** Files larger than this (bytes) are refused rather than sent to a server (default 4 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_START_TIMEOUT_MS = 60_000;
const DEFAULT_DIAGNOSTICS_SETTLE_MS = 300;
/** Documents kept open per session; the least recently used are closed past it (default 500). */
const DEFAULT_MAX_OPEN_DOCUMENTS = 500;
/** Lines of server stderr kept for "last error" (default 20). */
const STDERR_LINES_KEPT = 20;

export interface SessionOptions {
  language: LanguageServerConfig;
  /** Real path of the workspace root. */
  root: string;
  maxFileBytes?: number;
  /** Open documents kept, at most; the least recently used are closed (didClose) past it. */
  maxOpenDocuments?: number;
  onLog?: (line: string) => void;
  /** State changes, recorded diagnostics, close. */
  onEvent?: SessionEventListener;
}

export class LanguageSession {
  readonly diagnostics = new DiagnosticsStore();
  readonly progress = new ProgressTracker();
  /** Capabilities the server registered at run time (file watchers, pull diagnostics). */
  readonly registrations = new CapabilityRegistrations();
  readonly language: LanguageServerConfig;
  readonly startedAt = Date.now();
  private readonly process: LanguageServerProcess;
  /** Open documents by URI, least recently used first (re-inserted on every sync). */
  private readonly documents = new Map<string, OpenDocument>();
  /** Document syncs run one at a time, so the last one to read the disk is the last one sent. */
  private syncQueue: Promise<unknown> = Promise.resolve();
  private lastState: ServerStateName | undefined;
  private readonly stderrTail: string[] = [];
  private initialized = false;
  private closed = false;
  private exitReason: string | undefined;
  capabilities: ServerCapabilities = {};
  encoding: PositionEncoding = "utf-16";
  serverName = "";

  private constructor(private readonly options: SessionOptions) {
    this.language = options.language;
    this.process = new LanguageServerProcess({
      command: options.language.command,
      args: options.language.args,
      cwd: options.root,
      env: options.language.env,
      onStderr: (line) => {
        this.stderrTail.push(line);
        if (this.stderrTail.length > STDERR_LINES_KEPT) this.stderrTail.shift();
        options.onLog?.(line);
      },
    });
    void this.process.exited.then(({ code, signal }) => {
      if (!this.closed) this.exitReason = `exited unexpectedly (${signal ?? `code ${code}`})`;
      this.emitStateChange();
    });
    this.registerServerRequests();
    this.diagnostics.onRecord((uri, stored) => this.emit({ type: "diagnostics", session: this, uri, stored }));
    this.emitStateChange();
  }

  /** Starts the server and completes the initialize handshake. */
  static async start(options: SessionOptions): Promise<LanguageSession> {
    const session = new LanguageSession(options);
    try {
      await session.initialize();
      return session;
    } catch (error) {
      await session.close();
      throw error;
    }
  }

  get state(): ServerStateName {
    if (this.exitReason) return "failed";
    if (!this.initialized) return "starting";
    return this.progress.busy ? "indexing" : "ready";
  }

  get isAlive(): boolean {
    return !this.closed && this.process.isRunning;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  get lastError(): string {
    return this.exitReason ? `${this.exitReason}; ${this.stderrTail.slice(-3).join(" | ")}` : "";
  }

  get openDocumentCount(): number {
    return this.documents.size;
  }

  private get rootUri(): string {
    return pathToFileURL(this.options.root).href;
  }

  private registerServerRequests(): void {
    const connection = this.process.connection;
    connection.onRequest("workspace/configuration", (params: { items: Array<{ section?: string }> }) =>
      params.items.map((item) => lookupSetting(this.language.settings ?? {}, item.section)),
    );
    connection.onRequest("workspace/workspaceFolders", () => [{ uri: this.rootUri, name: "workspace" }]);
    // Registrations, progress tokens and refresh requests need only an acknowledgement.
    // A created progress token counts as work under way until its "end" (the "begin" can come later).
    connection.onRequest("window/workDoneProgress/create", (params: { token: string | number }) => {
      this.progress.create(params.token);
      this.emitStateChange();
      return null;
    });
    connection.onRequest("client/registerCapability", (params: { registrations: Registration[] }) => {
      this.registrations.register(params);
      return null;
    });
    connection.onRequest("client/unregisterCapability", (params: { unregisterations: Unregistration[] }) => {
      this.registrations.unregister(params);
      return null;
    });
    for (const method of [
      "window/showMessageRequest",
      "window/showDocument",
      "workspace/diagnostic/refresh",
      "workspace/semanticTokens/refresh",
      "workspace/inlayHint/refresh",
      "workspace/codeLens/refresh",
      "workspace/inlineValue/refresh",
    ]) {
      connection.onRequest(method, () => null);
    }
    // Servers never write to the workspace behind the caller's back.
    connection.onRequest("workspace/applyEdit", () => ({
      applied: false,
      failureReason: "lspmesh applies edits only on request",
    }));
    connection.onNotification("$/progress", (params: { token: string | number; value: { kind?: string } }) => {
      this.progress.update(params.token, params.value);
      this.emitStateChange();
    });
    connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => {
      // Kept for open documents only: their version and content are known. What a server pushes
      // for a closed document (often an empty list on didClose) says nothing about the file.
      const uri = canonicalUri(params.uri);
      const document = this.documents.get(uri);
      if (!document) return;
      const version = params.version ?? document.version;
      this.diagnostics.record(uri, params.diagnostics, version, version === document.version ? document.hash : "");
    });
    connection.onNotification("window/logMessage", (params: { message: string }) =>
      this.options.onLog?.(params.message),
    );
  }

  private async initialize(): Promise<void> {
    const result = await this.send<InitializeResult>(
      "initialize",
      {
        processId: process.pid, // servers that watch their parent exit when the runner dies
        clientInfo: { name: "lspmesh" },
        rootUri: this.rootUri,
        rootPath: this.options.root,
        workspaceFolders: [{ uri: this.rootUri, name: "workspace" }],
        capabilities: CLIENT_CAPABILITIES,
        initializationOptions: this.language.initializationOptions,
      },
      this.language.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    );
    this.capabilities = result.capabilities;
    const negotiated = result.capabilities.positionEncoding;
    this.encoding = negotiated === "utf-8" || negotiated === "utf-32" ? negotiated : "utf-16";
    this.serverName = [result.serverInfo?.name ?? this.language.id, result.serverInfo?.version]
      .filter(Boolean)
      .join(" ");
    await this.process.connection.sendNotification("initialized", {});
    if (this.language.settings) {
      await this.process.connection.sendNotification("workspace/didChangeConfiguration", {
        settings: this.language.settings,
      });
    }
    this.initialized = true;
    this.emitStateChange();
  }

  /**
   * Makes the server's copy of a file equal to the disk: didOpen the first time, didChange (full
   * text, increasing version) when the content changed since.
   */
  syncDocument(file: ResolvedFile, languageId: string): Promise<OpenDocument> {
    return this.serialized(() => this.syncNow(file, languageId));
  }

  private async syncNow(file: ResolvedFile, languageId: string): Promise<OpenDocument> {
    const maxBytes = this.options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    if (file.size > maxBytes) {
      throw new RunnerError(
        "FILE_TOO_LARGE",
        `${file.path} is ${(file.size / 1048576).toFixed(1)} MiB; files over ${(maxBytes / 1048576).toFixed(1)} MiB are not sent to language servers`,
      );
    }
    const text = decodeDocument(await readFile(file.absolute));
    if (text === undefined) {
      throw new RunnerError("INVALID_ARGUMENT", `${file.path} is a binary file; name a source file`);
    }
    const uri = pathToFileURL(file.absolute).href;
    const existing = this.documents.get(uri);
    const connection = this.process.connection;
    if (!existing) {
      const document = new OpenDocument(uri, languageId, text, 1, this.diagnostics.mark());
      this.documents.set(uri, document);
      await connection.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId, version: document.version, text },
      });
      await this.closeLeastRecentlyUsed();
      return document;
    }
    this.documents.delete(uri); // most recently used now
    this.documents.set(uri, existing);
    if (existing.text !== text) {
      // New content changes what the server knows of the workspace: every file's diagnostics may change.
      existing.replace(text, this.diagnostics.noteChange());
      await connection.sendNotification("textDocument/didChange", {
        textDocument: { uri, version: existing.version },
        contentChanges: [{ text }],
      });
    }
    return existing;
  }

  document(uri: string): OpenDocument | undefined {
    return this.documents.get(uri);
  }

  /** Open documents, least recently used first. */
  openDocuments(): OpenDocument[] {
    return [...this.documents.values()];
  }

  /** didClose for an open document (its file was deleted, or it is no longer needed). */
  closeDocument(uri: string): Promise<boolean> {
    return this.serialized(async () => {
      if (!this.documents.delete(uri)) return false;
      this.diagnostics.delete(uri);
      if (this.process.isRunning) {
        await this.process.connection.sendNotification("textDocument/didClose", { textDocument: { uri } });
      }
      return true;
    });
  }

  private async closeLeastRecentlyUsed(): Promise<void> {
    const cap = this.options.maxOpenDocuments ?? DEFAULT_MAX_OPEN_DOCUMENTS;
    for (const [uri] of this.documents) {
      if (this.documents.size <= cap) break;
      this.documents.delete(uri);
      this.diagnostics.delete(uri);
      await this.process.connection.sendNotification("textDocument/didClose", { textDocument: { uri } });
    }
  }

  /**
   * Tells the server that files changed on disk (`workspace/didChangeWatchedFiles`): the events
   * its registered watchers ask for, or every event when it registered none. Returns how many
   * were sent; sending any counts as a workspace change for diagnostics freshness.
   */
  async didChangeWatchedFiles(events: readonly FileEvent[]): Promise<number> {
    const registered = this.registrations.watchesFiles;
    const wanted = registered ? this.registrations.wanted(events) : [...events];
    if (wanted.length === 0 || !this.process.isRunning || !this.initialized) return 0;
    // Without registered watchers, only files of this language are taken to affect diagnostics.
    const extensions = Object.keys(this.language.extensions);
    if (registered || wanted.some((event) => extensions.some((extension) => event.uri.endsWith(extension)))) {
      this.diagnostics.noteChange();
    }
    await this.process.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: wanted });
    return wanted.length;
  }

  /** Whether diagnostics are pulled (`textDocument/diagnostic`) rather than waited for. */
  get pullsDiagnostics(): boolean {
    return Boolean(this.capabilities.diagnosticProvider) || this.registrations.has("textDocument/diagnostic");
  }

  private serialized<T>(run: () => Promise<T>): Promise<T> {
    const result = this.syncQueue.then(run);
    this.syncQueue = result.catch(() => undefined);
    return result;
  }

  /** Sends a request with the language's timeout; a timeout or abort cancels it ($/cancelRequest). */
  request<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R> {
    return this.send<R>(method, params, this.language.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, signal);
  }

  private async send<R>(method: string, params: unknown, timeoutMs: number, signal?: AbortSignal): Promise<R> {
    if (!this.process.isRunning) throw this.failedError();
    const cancellation = new CancellationTokenSource();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      cancellation.cancel();
    }, timeoutMs);
    const onAbort = () => cancellation.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return (await this.process.connection.sendRequest(method, params, cancellation.token)) as R;
    } catch (error) {
      if (timedOut) {
        throw new RunnerError(
          "TIMEOUT",
          `the ${this.language.id} language server did not answer ${method} within ${timeoutMs} ms; try again, or narrow the request`,
        );
      }
      if (signal?.aborted) throw new RunnerError("TIMEOUT", `${method} was cancelled by the caller`);
      if (!this.process.isRunning || this.exitReason) throw this.failedError();
      const message = (error as { message?: string }).message ?? String(error);
      throw new RunnerError("SERVER_FAILED", `the ${this.language.id} language server failed ${method}: ${message}`, {
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      cancellation.dispose();
      this.emitStateChange();
    }
  }

  private failedError(): RunnerError {
    return new RunnerError(
      "UNAVAILABLE",
      `the ${this.language.id} language server ${this.exitReason ?? "is not running"}; the next request starts a new one`,
    );
  }

  /** Resolves true once no work-done progress is open, false when timeoutMs passes first. */
  waitUntilIdle(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.progress.waitIdle(timeoutMs, signal);
  }

  diagnosticsSettleMs(): number {
    return this.language.diagnosticsSettleMs ?? DEFAULT_DIAGNOSTICS_SETTLE_MS;
  }

  /** Stops the server with the shutdown ladder. Idempotent; onEvent hears "closed" once. */
  async close(): Promise<void> {
    const first = !this.closed;
    this.closed = true;
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

/** One spelling per file URI, whatever percent-encoding the server chose. */
function canonicalUri(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    return pathToFileURL(fileURLToPath(uri)).href;
  } catch {
    return uri;
  }
}

/** `workspace/configuration` answer for a section such as "formattingOptions" or "python.analysis". */
export function lookupSetting(settings: Readonly<Record<string, unknown>>, section: string | undefined): unknown {
  if (!section) return settings;
  let value: unknown = settings;
  for (const part of section.split(".")) {
    if (value === null || typeof value !== "object") return null;
    value = (value as Record<string, unknown>)[part];
  }
  return value ?? null;
}
