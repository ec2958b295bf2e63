// Diagnostics kept per file with the document version and content hash they belong to, the
// session's workspace epoch, and waiting for diagnostics newer than a given sync or change. While
// unsaved content is laid over documents (check_edit), what is recorded is told to no listener and
// taken back when the overlay is lifted: it describes content that is not the files'.
import type { Diagnostic } from "vscode-languageserver-protocol";

export interface StoredDiagnostics {
  readonly diagnostics: readonly Diagnostic[];
  /** Document version the server said they belong to, or the version open when they arrived. */
  readonly version: number;
  /** SHA-256 (hex) of that version's content; "" when the runner no longer holds that version. */
  readonly contentSha256: string;
  /** Workspace epoch when they were recorded (see DiagnosticsStore.epoch). */
  readonly epoch: number;
  /** Monotonic sequence number of the record (orders results against document syncs and changes). */
  readonly sequence: number;
  /** When it arrived (ms since epoch). */
  readonly receivedAt: number;
  /** Result id of a pulled report, sent back as previousResultId on the next pull. */
  readonly resultId?: string;
  /** Asked for and answered complete (pulled), rather than pushed (possibly a first, partial result). */
  readonly pulled?: boolean;
}

export type DiagnosticsListener = (uri: string, stored: StoredDiagnostics) => void;

export class DiagnosticsStore {
  private readonly byUri = new Map<string, StoredDiagnostics>();
  /** The last pulled record per file, kept when pushes come after it. */
  private readonly pulledByUri = new Map<string, StoredDiagnostics>();
  private readonly waiters = new Set<() => void>();
  private readonly listeners = new Set<DiagnosticsListener>();
  private sequence = 0;
  private lastChange = 0;
  private currentEpoch = Date.now();
  /** While an overlay is laid: each file's records from before it (undefined = none), put back when it is lifted. */
  private beforeOverlay: Map<string, { latest?: StoredDiagnostics; pulled?: StoredDiagnostics }> | undefined;

  /**
   * The workspace epoch: ms since the Unix epoch, strictly increasing, starting when the session
   * started and advanced by every change the server was told of (noteChange).
   */
  get epoch(): number {
    return this.currentEpoch;
  }

  /** Sequence of the last change the server was told of: results recorded before it may be outdated. */
  get changedAt(): number {
    return this.lastChange;
  }

  /** The sequence a sync made now is ordered at: later records have a higher one. */
  mark(): number {
    return ++this.sequence;
  }

  /**
   * Records that the server was told of a change in the workspace (a document's new content, a
   * watched file created/changed/deleted): every file's diagnostics may change. Returns its mark.
   */
  noteChange(): number {
    this.lastChange = ++this.sequence;
    this.currentEpoch = Math.max(Date.now(), this.currentEpoch + 1);
    return this.lastChange;
  }

  record(
    uri: string,
    diagnostics: readonly Diagnostic[],
    version: number,
    contentSha256: string,
    origin: { resultId?: string; pulled?: boolean } = {},
  ): StoredDiagnostics {
    const stored: StoredDiagnostics = {
      diagnostics,
      version,
      contentSha256,
      epoch: this.currentEpoch,
      sequence: ++this.sequence,
      receivedAt: Date.now(),
      ...(origin.resultId === undefined ? {} : { resultId: origin.resultId }),
      ...(origin.pulled ? { pulled: true } : {}),
    };
    this.keepBeforeOverlay(uri);
    this.byUri.set(uri, stored);
    if (origin.pulled) this.pulledByUri.set(uri, stored);
    for (const wake of this.waiters) wake();
    if (this.beforeOverlay) return stored;
    for (const listener of this.listeners) {
      try {
        listener(uri, stored);
      } catch {
        // A listener's failure must not lose the record or stop the others.
      }
    }
    return stored;
  }

  get(uri: string): StoredDiagnostics | undefined {
    return this.byUri.get(uri);
  }

  /** The last pulled record of a file, even when pushes came after it. */
  pulledOf(uri: string): StoredDiagnostics | undefined {
    return this.pulledByUri.get(uri);
  }

  delete(uri: string): void {
    this.keepBeforeOverlay(uri);
    this.byUri.delete(uri);
    this.pulledByUri.delete(uri);
  }

  /** Whether unsaved content is laid over documents (beginOverlay … endOverlay). */
  get overlaid(): boolean {
    return this.beforeOverlay !== undefined;
  }

  /**
   * Unsaved content is being laid over documents: records from now on are the overlay's. They are
   * kept (the check reads them as usual) but told to no listener (they are not the files'
   * diagnostics), and endOverlay puts back what each file had before.
   */
  beginOverlay(): void {
    this.beforeOverlay ??= new Map();
  }

  /** The overlay is lifted: every file's records are again what they were before it. */
  endOverlay(): void {
    const kept = this.beforeOverlay;
    this.beforeOverlay = undefined;
    if (!kept) return;
    for (const [uri, { latest, pulled }] of kept) {
      if (latest) this.byUri.set(uri, latest);
      else this.byUri.delete(uri);
      if (pulled) this.pulledByUri.set(uri, pulled);
      else this.pulledByUri.delete(uri);
    }
    for (const wake of this.waiters) wake();
  }

  private keepBeforeOverlay(uri: string): void {
    if (!this.beforeOverlay || this.beforeOverlay.has(uri)) return;
    this.beforeOverlay.set(uri, { latest: this.byUri.get(uri), pulled: this.pulledByUri.get(uri) });
  }

  /** Calls listener for every record from now on; returns the unsubscribe. */
  onRecord(listener: DiagnosticsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves with the diagnostics of `uri` once one was recorded after `afterSequence` and no
   * further record came for `settleMs` (servers push syntax and semantic results separately),
   * or with undefined when `timeoutMs` passes first.
   */
  async waitForNewer(
    uri: string,
    afterSequence: number,
    timeoutMs: number,
    settleMs: number,
    signal?: AbortSignal,
  ): Promise<StoredDiagnostics | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = this.byUri.get(uri);
      const remaining = deadline - Date.now();
      if (current && current.sequence > afterSequence) {
        // Settled when nothing newer arrives within settleMs (or before the deadline).
        if (Date.now() - current.receivedAt >= settleMs) return current;
        const next = await this.nextRecord(uri, Math.min(settleMs, Math.max(remaining, 0)), signal);
        if (!next) return this.byUri.get(uri);
        continue;
      }
      if (remaining <= 0 || signal?.aborted) return undefined;
      await this.nextRecord(uri, remaining, signal);
    }
  }

  private nextRecord(uri: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const before = this.byUri.get(uri)?.sequence ?? 0;
    return new Promise((resolve) => {
      const finish = (recorded: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        signal?.removeEventListener("abort", onAbort);
        resolve(recorded);
      };
      const wake = () => {
        if ((this.byUri.get(uri)?.sequence ?? 0) > before) finish(true);
      };
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.waiters.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
