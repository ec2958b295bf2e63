import { sha256, splitLines } from "./textDocument.js";

/** A document as the server currently has it open. */
export class OpenDocument {
  lines: string[];
  hash: string;
  /**
   * The stamp (ResolvedFile.stamp) of the file this text was read from, when it may be trusted: a
   * file with the same stamp need not be read again. Undefined = read it again next time.
   */
  diskStamp: string | undefined;
  /** The text is unsaved content laid over the file (check_edit), not the disk's: syncs keep it until a reread. */
  unsaved = false;

  constructor(
    readonly uri: string,
    readonly languageId: string,
    public text: string,
    public version: number,
    /** Diagnostics-store sequence at the time this content was sent to the server. */
    public syncedAt: number,
  ) {
    this.lines = splitLines(text);
    this.hash = sha256(text);
  }

  replace(text: string, syncedAt: number): void {
    this.text = text;
    this.lines = splitLines(text);
    this.hash = sha256(text);
    this.version++;
    this.syncedAt = syncedAt;
  }
}
