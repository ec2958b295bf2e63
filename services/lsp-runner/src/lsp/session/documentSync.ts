// Keeps a server's view of open documents equal to the files on disk: didOpen on first use,
// didChange with the full text when the file changed, didClose for documents pushed out by the
// open-document cap or closed on request. Syncs run one at a time, so the last one to read the
// disk is the last one sent. A document whose file kept its stamp (inode, size, mtime, ctime) since
// it was read is used as it is, without reading the file or waiting for other syncs.
import { pathToFileURL } from "node:url";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import {
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../../errors.js";
import { readKnownFile, trustedStamp } from "../../workspace/metadata.js";
import type { ResolvedFile } from "../../workspace/workspacePaths.js";
import { pathError } from "../../workspace/workspacePaths.js";
import type { OpenDocument } from "../documents/openDocument.js";
import type { OpenDocuments } from "../documents/openDocuments.js";
import { decodeDocument } from "../documents/textDocument.js";
import type { DiagnosticsStore } from "./diagnosticsStore.js";

export interface DocumentSyncHost {
  readonly documents: OpenDocuments;
  readonly diagnostics: DiagnosticsStore;
  readonly connection: MessageConnection;
  /** Files over this size (bytes) are refused with FILE_TOO_LARGE. */
  readonly maxFileBytes: number;
  /** The server is still running (a closed document needs no didClose once it is gone). */
  isRunning(): boolean;
  /** Throws when the session can no longer take requests. */
  assertUsable(): void;
  /**
   * Resolves once the server answered a request sent now (any answer, an error included): what it
   * sent before that answer, such as diagnostics pushed while handling earlier notifications, has arrived.
   */
  roundTrip(): Promise<void>;
  /**
   * Something the server knows of the workspace changed (a document opened, changed or closed);
   * "opened" when only documents were opened as they are on disk (or reopened unchanged).
   */
  onContentChange(change: ContentChange): void;
}

/** How the server's view moved: documents opened with the content it already knew, or changed. */
export type ContentChange = "opened" | "changed";

export interface SyncOptions {
  /** Read the file even if its stamp is unchanged (a file event said it changed). */
  reread?: boolean;
}

export class DocumentSync {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly host: DocumentSyncHost) {}

  /** The document for `file`, opened or updated from disk. */
  sync(file: ResolvedFile, languageId: string, options: SyncOptions = {}): Promise<OpenDocument> {
    const { maxFileBytes } = this.host;
    if (file.size > maxFileBytes) {
      throw new RunnerError(
        "FILE_TOO_LARGE",
        `${file.path} is ${(file.size / 1048576).toFixed(1)} MiB; files over ${(maxFileBytes / 1048576).toFixed(1)} MiB are not sent to language servers`,
      );
    }
    const uri = pathToFileURL(file.absolute).href;
    if (!options.reread) {
      const unchanged = this.host.documents.peek(uri);
      // Laid over by a check (which holds the session's OverlayGate): kept until restored.
      if (unchanged?.unsaved) return Promise.resolve(unchanged);
      if (unchanged?.diskStamp !== undefined && unchanged.diskStamp === file.stamp) {
        this.host.assertUsable();
        this.host.documents.use(uri);
        return Promise.resolve(unchanged);
      }
    }
    return this.serialized(async () => {
      const readAtMs = Date.now();
      // The file opened must be the one resolved: a folder on its path swapped since is refused.
      const bytes = await Promise.resolve()
        .then(() => readKnownFile(file.absolute, file.size, { exactly: file.absolute }))
        .catch((error: unknown) => {
          throw pathError(error, file.path);
        });
      const text = decodeDocument(bytes);
      if (text === undefined) {
        throw new RunnerError("INVALID_ARGUMENT", `${file.path} is a binary file; name a source file`);
      }
      this.host.assertUsable();
      const { documents, diagnostics, connection } = this.host;
      // The stamp was taken before the read: a write in between changes the stamp, so the next
      // sync reads again. A write in the same clock tick as the read might not: not trusted.
      const stamp = trustedStamp(file.stamp, file.changedAtMs, readAtMs);
      const existing = documents.use(uri);
      if (!existing) {
        const document = documents.open(uri, languageId, text, diagnostics.mark());
        document.diskStamp = stamp;
        this.host.onContentChange("opened");
        await connection.sendNotification(DidOpenTextDocumentNotification.type, {
          textDocument: { uri, languageId, version: document.version, text },
        });
        for (const closed of documents.takeOverflow()) {
          diagnostics.delete(closed.uri);
          await connection.sendNotification(DidCloseTextDocumentNotification.type, {
            textDocument: { uri: closed.uri },
          });
        }
        await this.liftOverlayIfRestored();
        return document;
      }
      existing.diskStamp = stamp;
      existing.unsaved = false;
      if (existing.text !== text) {
        // New content changes what the server knows of the workspace: every file's diagnostics may change.
        existing.replace(text, diagnostics.noteChange());
        this.host.onContentChange("changed");
        await connection.sendNotification(DidChangeTextDocumentNotification.type, {
          textDocument: { uri, version: existing.version },
          contentChanges: [{ text }],
        });
      }
      await this.liftOverlayIfRestored();
      return existing;
    });
  }

  /**
   * Lays unsaved `text` over an open document (a new version, didChange); the disk is untouched.
   * Undefined when the document is not open. Undone by sync(file, id, { reread: true }).
   */
  overlay(uri: string, text: string): Promise<OpenDocument | undefined> {
    return this.serialized(async () => {
      const document = this.host.documents.peek(uri);
      if (!document) return undefined;
      this.host.assertUsable();
      this.host.diagnostics.beginOverlay();
      document.unsaved = true;
      if (document.text === text) return document;
      document.replace(text, this.host.diagnostics.noteChange());
      this.host.onContentChange("changed");
      await this.host.connection.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version: document.version },
        contentChanges: [{ text }],
      });
      return document;
    });
  }

  /**
   * Has the server check an open document again although its text did not change: didClose, then
   * didOpen of the same text with the next version. Servers that only push may publish nothing
   * for a file whose diagnostics stayed the same (typescript-language-server says nothing about a
   * clean file that stays clean), so without this such a file could never be called fresh after a
   * workspace change. What the server pushes for the closed document (an empty list) arrives
   * before the round trip completes and is ignored as belonging to no open document.
   * Returns the reopened document, or undefined when it is not open (or the server is gone).
   */
  recheck(uri: string): Promise<OpenDocument | undefined> {
    return this.serialized(async () => {
      const { documents, diagnostics, connection } = this.host;
      const document = documents.peek(uri);
      if (!document || !this.host.isRunning()) return undefined;
      this.host.assertUsable();
      // The old record stays: shown marked not fresh if the server says nothing in time.
      documents.delete(uri);
      await connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
      await this.host.roundTrip();
      const reopened = documents.open(uri, document.languageId, document.text, diagnostics.mark());
      reopened.diskStamp = document.diskStamp;
      reopened.unsaved = document.unsaved;
      this.host.onContentChange("opened");
      await connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri, languageId: reopened.languageId, version: reopened.version, text: reopened.text },
      });
      return reopened;
    });
  }

  /** didClose for an open document (its file was renamed or deleted, or it is no longer needed). */
  close(uri: string): Promise<boolean> {
    return this.serialized(async () => {
      if (!this.host.documents.delete(uri)) return false;
      this.host.diagnostics.delete(uri);
      this.host.onContentChange("changed");
      if (this.host.isRunning()) {
        await this.host.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
      }
      await this.liftOverlayIfRestored();
      return true;
    });
  }

  /**
   * Once no document holds unsaved content any more, the diagnostics recorded meanwhile are
   * dropped (DiagnosticsStore.endOverlay): after a round trip, so that what the server sent
   * before it read the restoring changes is dropped too.
   */
  private async liftOverlayIfRestored(): Promise<void> {
    const { documents, diagnostics } = this.host;
    if (!diagnostics.overlaid || documents.all().some((document) => document.unsaved)) return;
    if (this.host.isRunning()) await this.host.roundTrip();
    diagnostics.endOverlay();
  }

  private serialized<T>(run: () => Promise<T>): Promise<T> {
    const result = this.queue.then(run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
