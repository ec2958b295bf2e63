// The documents a session has open at its server, least recently used first, with a cap: past it
// the oldest are closed (the server drops their state), and reopened transparently when used again.
import { OpenDocument } from "./openDocument.js";

/** Documents kept open per session by default (above the 200 files of a whole-workspace check). */
export const DEFAULT_MAX_OPEN_DOCUMENTS = 256;

export class OpenDocuments {
  /** Map order is the LRU order: a used document is moved to the end. */
  private readonly byUri = new Map<string, OpenDocument>();
  /** Last version of closed documents: a reopened one continues the sequence (versions only grow). */
  private readonly closedVersions = new Map<string, number>();

  constructor(private readonly cap = DEFAULT_MAX_OPEN_DOCUMENTS) {}

  get size(): number {
    return this.byUri.size;
  }

  /** Every open document, least recently used first. */
  all(): OpenDocument[] {
    return [...this.byUri.values()];
  }

  /** The open document, without counting as a use. */
  peek(uri: string): OpenDocument | undefined {
    return this.byUri.get(uri);
  }

  /** The open document, counted as used now. */
  use(uri: string): OpenDocument | undefined {
    const document = this.byUri.get(uri);
    if (document) {
      this.byUri.delete(uri);
      this.byUri.set(uri, document);
    }
    return document;
  }

  open(uri: string, languageId: string, text: string, syncedAt: number): OpenDocument {
    const version = (this.closedVersions.get(uri) ?? 0) + 1;
    this.closedVersions.delete(uri);
    const document = new OpenDocument(uri, languageId, text, version, syncedAt);
    this.byUri.set(uri, document);
    return document;
  }

  isClosed(uri: string): boolean {
    return this.closedVersions.has(uri);
  }

  /** Forgets a document the caller closes (its file was renamed or deleted); false if not open. */
  delete(uri: string): boolean {
    const document = this.byUri.get(uri);
    if (!document) return false;
    this.byUri.delete(uri);
    this.closedVersions.set(uri, document.version);
    return true;
  }

  /** Removes the least recently used documents beyond the cap and returns them (to didClose). */
  takeOverflow(): OpenDocument[] {
    const closed: OpenDocument[] = [];
    for (const [uri, document] of this.byUri) {
      if (this.byUri.size <= this.cap) break;
      this.byUri.delete(uri);
      this.closedVersions.set(uri, document.version);
      closed.push(document);
    }
    return closed;
  }
}
