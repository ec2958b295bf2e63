// Configuration files mounted from Kubernetes secrets and config maps change in place when the
// operator rotates a key or adds a workspace. This polls a file's modification time and hands a
// freshly parsed value over when it changed; a file that fails to parse keeps the previous value
// in force (and is reported), so a bad edit never locks every caller out.
import { stat } from "node:fs/promises";

/** How often mounted configuration files are checked for changes, in ms (default 10 000). */
export const DEFAULT_RELOAD_INTERVAL_MS = 10_000;

export interface ReloadingFile {
  /** Stops polling. Idempotent. */
  close(): void;
}

export function reloadOnChange(options: {
  path: string;
  /** Reads and parses the file; throws on a bad file. Called only after a change. */
  load: () => void;
  onReloaded?: () => void;
  onError?: (error: Error) => void;
  intervalMs?: number;
}): ReloadingFile {
  let lastModified: number | undefined;
  let checking = false;
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      const { mtimeMs, ctimeMs } = await stat(options.path);
      // Secrets are swapped by symlink (ctime changes too); take the later of the two.
      const modified = Math.max(mtimeMs, ctimeMs);
      if (lastModified === undefined) {
        lastModified = modified;
        return;
      }
      if (modified === lastModified) return;
      lastModified = modified;
      options.load();
      options.onReloaded?.();
    } catch (error) {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
    } finally {
      checking = false;
    }
  };
  void check();
  const timer = setInterval(() => void check(), options.intervalMs ?? DEFAULT_RELOAD_INTERVAL_MS);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
