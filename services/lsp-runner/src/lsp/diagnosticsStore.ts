// Pushed diagnostics kept per file with the document version they belong to, and waiting for
// diagnostics newer than a given sync.
import type { Diagnostic } from "vscode-languageserver-protocol";

export interface StoredDiagnostics {
  readonly diagnostics: readonly Diagnostic[];
  /** Document version the server said they belong to, or the version open when they arrived. */
  readonly version: number;
  /** Monotonic sequence number of the publish (orders publishes against document syncs). */
  readonly sequence: number;
  /** When it arrived (ms since epoch). */
  readonly receivedAt: number;
}

export class DiagnosticsStore {
  private readonly byUri = new Map<string, StoredDiagnostics>();
  private readonly waiters = new Set<() => void>();
  private sequence = 0;

  /** The sequence a sync made now is ordered at: later publishes have a higher one. */
  mark(): number {
    return ++this.sequence;
  }

  record(uri: string, diagnostics: readonly Diagnostic[], version: number): void {
    this.byUri.set(uri, { diagnostics, version, sequence: ++this.sequence, receivedAt: Date.now() });
    for (const wake of this.waiters) wake();
  }

  get(uri: string): StoredDiagnostics | undefined {
    return this.byUri.get(uri);
  }

  /**
   * Resolves with the diagnostics of `uri` once one was published after `afterSequence` and no
   * further publish came for `settleMs` (servers push syntax and semantic results separately),
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
        const next = await this.nextPublish(uri, Math.min(settleMs, Math.max(remaining, 0)), signal);
        if (!next) return this.byUri.get(uri);
        continue;
      }
      if (remaining <= 0 || signal?.aborted) return undefined;
      await this.nextPublish(uri, remaining, signal);
    }
  }

  private nextPublish(uri: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const before = this.byUri.get(uri)?.sequence ?? 0;
    return new Promise((resolve) => {
      const finish = (published: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        signal?.removeEventListener("abort", onAbort);
        resolve(published);
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
