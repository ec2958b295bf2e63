// One language server for one (tenant, workspace, language): starts it, answers its requests,
// keeps documents in sync with the files on disk, and sends requests with timeouts.
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import {
  CancellationTokenSource,
  type InitializeResult,
  type PublishDiagnosticsParams,
  type ServerCapabilities,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import type { ResolvedFile } from "../workspace/workspacePaths.js";
import { CLIENT_CAPABILITIES } from "./clientCapabilities.js";
import { DiagnosticsStore } from "./diagnosticsStore.js";
import type { LanguageServerConfig } from "./languageRegistry.js";
import { LanguageServerProcess } from "./languageServerProcess.js";
import { OpenDocument } from "./openDocument.js";
import type { PositionEncoding } from "./positionEncoding.js";
import { assertServerInstalled, serverExitedAtStartError, serverNotInstalledError } from "./serverStartFailure.js";
import { ProgressTracker, type ServerStateName } from "./sessionState.js";
import { decodeDocument } from "./textDocument.js";

/** Files larger than this (bytes) are refused rather than sent to a server (default 4 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_START_TIMEOUT_MS = 60_000;
const DEFAULT_DIAGNOSTICS_SETTLE_MS = 300;
/** Lines of server stderr kept for "last error" (default 20). */
const STDERR_LINES_KEPT = 20;

export interface SessionOptions {
  language: LanguageServerConfig;
  /** Real path of the workspace root. */
  root: string;
  maxFileBytes?: number;
  onLog?: (line: string) => void;
}

export class LanguageSession {
  readonly diagnostics = new DiagnosticsStore();
  readonly progress = new ProgressTracker();
  readonly language: LanguageServerConfig;
  readonly startedAt = Date.now();
  private readonly process: LanguageServerProcess;
  private readonly documents = new Map<string, OpenDocument>();
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
    });
    this.registerServerRequests();
  }

  /** Starts the server and completes the initialize handshake. */
  static async start(options: SessionOptions): Promise<LanguageSession> {
    assertServerInstalled(options.language);
    const session = new LanguageSession(options);
    try {
      if (!(await session.process.spawned)) throw session.process.spawnError;
      // A server that exits before answering would leave initialize waiting for startTimeoutMs.
      const exit = await Promise.race([session.initialize().then(() => undefined), session.process.exited]);
      if (exit) throw serverExitedAtStartError(options.language, exit, session.stderrTail);
      return session;
    } catch (error) {
      await session.close();
      const spawnError = session.process.spawnError;
      throw spawnError ? serverNotInstalledError(options.language, spawnError) : error;
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
      return null;
    });
    for (const method of [
      "client/registerCapability",
      "client/unregisterCapability",
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
    connection.onNotification("$/progress", (params: { token: string | number; value: { kind?: string } }) =>
      this.progress.update(params.token, params.value),
    );
    connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => {
      const version = params.version ?? this.documents.get(params.uri)?.version ?? 0;
      this.diagnostics.record(params.uri, params.diagnostics, version);
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
  }

  /**
   * Makes the server's copy of a file equal to the disk: didOpen the first time, didChange (full
   * text, increasing version) when the content changed since.
   */
  async syncDocument(file: ResolvedFile, languageId: string): Promise<OpenDocument> {
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
      return document;
    }
    if (existing.text !== text) {
      existing.replace(text, this.diagnostics.mark());
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

  /** Tells the server a document is closed (after its file was renamed or deleted). */
  async closeDocument(uri: string): Promise<void> {
    if (!this.documents.delete(uri) || !this.process.isRunning) return;
    await this.process.connection.sendNotification("textDocument/didClose", { textDocument: { uri } });
  }

  /** Sends a notification (workspace/didChangeWatchedFiles, workspace/didRenameFiles, …). */
  async notify(method: string, params: unknown): Promise<void> {
    if (!this.process.isRunning) return;
    await this.process.connection.sendNotification(method, params);
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
      throw new RunnerError("SERVER_FAILED", `the ${this.language.id} language server failed ${method}: ${message}`);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      cancellation.dispose();
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

  /** Stops the server with the shutdown ladder. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    await this.process.close();
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
