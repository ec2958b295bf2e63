// What a session's server knows of the workspace: the documents it has open (kept equal to the
// disk by documentSync.ts, at most maxOpenDocuments of them), the diagnostics it pushes for them,
// and the file events and notifications it is told. Every change to that knowledge is reported
// (the session's contentEpoch), so that answers given before it are no longer reused.
import {
  DidChangeWatchedFilesNotification,
  type FileEvent,
  type NotificationType,
  type PublishDiagnosticsParams,
} from "vscode-languageserver-protocol";
import type { ResolvedFile } from "../../workspace/workspacePaths.js";
import type { OpenDocument } from "../documents/openDocument.js";
import { OpenDocuments } from "../documents/openDocuments.js";
import type { LanguageServerProcess } from "../process/languageServerProcess.js";
import type { CapabilityRegistrations } from "./capabilityRegistrations.js";
import type { DiagnosticsStore } from "./diagnosticsStore.js";
import { type ContentChange, DocumentSync, type SyncOptions } from "./documentSync.js";
import type { RequestChannel } from "./requestChannel.js";
import type { SessionHealth } from "./sessionHealth.js";
import type { SessionSettings } from "./sessionOptions.js";

/** Files larger than this (bytes) are refused rather than sent to a server (default 4 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024;

export interface ServerDocumentsHost {
  /** The language, and the documents' limits (maxFileBytes, default DEFAULT_MAX_FILE_BYTES; maxOpenDocuments). */
  readonly options: Pick<SessionSettings, "language" | "maxFileBytes" | "maxOpenDocuments">;
  readonly process: Pick<LanguageServerProcess, "connection" | "isRunning">;
  /** Round trips: what the server pushed before an answer has arrived (DocumentSyncHost.roundTrip). */
  readonly channel: Pick<RequestChannel, "roundTrip">;
  /** Refuses syncs once the session ended; hears that pushed diagnostics are an answer. */
  readonly health: Pick<SessionHealth, "failures" | "noteDiagnostics">;
  readonly diagnostics: DiagnosticsStore;
  readonly registrations: CapabilityRegistrations;
  /** The handshake completed (file events before it would reach no one). */
  isInitialized(): boolean;
  /** Something the server knows of the workspace changed ("opened": only documents opened as on disk). */
  onContentChange(change: ContentChange): void;
  /** Pushed diagnostics were recorded: the session's state may have changed. */
  onChange(): void;
}

export class ServerDocuments {
  private readonly open: OpenDocuments;
  private readonly sync: DocumentSync;

  constructor(private readonly host: ServerDocumentsHost) {
    const { options, process, channel, health } = host;
    this.open = new OpenDocuments(options.maxOpenDocuments);
    this.sync = new DocumentSync({
      documents: this.open,
      diagnostics: host.diagnostics,
      connection: process.connection,
      maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      isRunning: () => process.isRunning,
      assertUsable: () => health.failures.assertUsable(),
      roundTrip: () => channel.roundTrip(),
      onContentChange: (change) => host.onContentChange(change),
    });
  }

  get size(): number {
    return this.open.size;
  }

  peek(uri: string): OpenDocument | undefined {
    return this.open.peek(uri);
  }

  /** Open documents, least recently used first. */
  all(): OpenDocument[] {
    return this.open.all();
  }

  /** The document for `file`, opened or updated from disk (DocumentSync.sync). */
  syncFile(file: ResolvedFile, languageId: string, options?: SyncOptions): Promise<OpenDocument> {
    return this.sync.sync(file, languageId, options);
  }

  /** Lays unsaved text over an open document (DocumentSync.overlay). */
  overlay(uri: string, text: string): Promise<OpenDocument | undefined> {
    return this.sync.overlay(uri, text);
  }

  /** Reopens an open document so that the server checks it again (DocumentSync.recheck). */
  recheck(uri: string): Promise<OpenDocument | undefined> {
    return this.sync.recheck(uri);
  }

  /** didClose for an open document. */
  closeDocument(uri: string): Promise<boolean> {
    return this.sync.close(uri);
  }

  /**
   * Records diagnostics the server pushed, for open documents only: their version and content
   * are known.
   */
  recordPushed(params: PublishDiagnosticsParams): void {
    // What a server pushes for a closed document (often an empty list on didClose) says nothing about the file.
    const document = this.open.peek(params.uri);
    if (!document) return;
    this.host.health.noteDiagnostics();
    const version = params.version ?? document.version;
    const hash = version === document.version ? document.hash : "";
    this.host.diagnostics.record(params.uri, params.diagnostics, version, hash);
    this.host.onChange();
  }

  /**
   * Tells the server that files changed on disk (`workspace/didChangeWatchedFiles`): the events
   * its registered watchers ask for, or every event when it registered none. Returns how many
   * were sent; sending any counts as a change (remembered answers, diagnostics freshness), except
   * events for the open documents in `synced`: those were just synced with their files, which
   * counted a new text as a change already (the server reads an open document from the runner, not
   * the disk), so an event repeated for a write already synced changes nothing.
   */
  async didChangeWatchedFiles(events: readonly FileEvent[], synced: ReadonlySet<string> = new Set()): Promise<number> {
    const { registrations, diagnostics } = this.host;
    const { language } = this.host.options;
    // Even events the server does not ask for count: a server may watch files by itself (tsserver).
    if (events.some((event) => !synced.has(event.uri))) this.host.onContentChange("changed");
    const registered = registrations.watchesFiles;
    const wanted = registered ? registrations.wanted(events) : [...events];
    if (wanted.length === 0 || !this.host.process.isRunning || !this.host.isInitialized()) return 0;
    const unsynced = wanted.filter((event) => !synced.has(event.uri));
    // Without registered watchers, only files of this language are taken to affect diagnostics.
    const extensions = Object.keys(language.extensions);
    const ofLanguage = (event: FileEvent) => extensions.some((extension) => event.uri.endsWith(extension));
    if (registered ? unsynced.length > 0 : unsynced.some(ofLanguage)) diagnostics.noteChange();
    await this.host.process.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: wanted });
    return wanted.length;
  }

  /** Sends a notification; it counts as a change to what the server knows. */
  async notify<P>(type: NotificationType<P> | string, params: P): Promise<void> {
    this.host.onContentChange("changed");
    if (!this.host.process.isRunning) return;
    await this.host.process.connection.sendNotification(typeof type === "string" ? type : type.method, params);
  }
}
