// A process that swaps two paths back and forth (a folder and a symlink, say) until stopped, for
// tests of check-then-use races. Needs Linux (renameat2) and glibc (koffi loads libc.so.6).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("../scripts/swapFolders.mjs", import.meta.url));

export interface FolderSwapper extends AsyncDisposable {
  /** Stops swapping with both paths as they were at the start; resolves to the number of swaps. Idempotent. */
  stop(): Promise<number>;
}

/**
 * Starts exchanging `first` and `second` (renameat2 RENAME_EXCHANGE) in a loop; resolves once it
 * runs. `pauseMs` (default 0: as fast as it can) pauses the loop that long after every 64 swaps.
 */
export async function startFolderSwapper(first: string, second: string, pauseMs = 0): Promise<FolderSwapper> {
  const control = mkdtempSync(join(tmpdir(), "lspmesh-swapper-"));
  const stopFile = join(control, "stop");
  const child = spawn(process.execPath, [SCRIPT, first, second, stopFile, String(pauseMs)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const exited = once(child, "exit");
  const lines = createInterface({ input: child.stdout });
  const output: string[] = [];
  lines.on("line", (line) => output.push(line));
  const started = await Promise.race([once(lines, "line").then(() => true), exited.then(() => false)]);
  if (!started) throw new Error(`the folder swapper did not start: ${stderr.trim()}`);
  let stopping: Promise<number> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      writeFileSync(stopFile, "");
      await exited;
      rmSync(control, { recursive: true, force: true });
      const swaps = Number(output.at(-1));
      if (child.exitCode !== 0 || !Number.isFinite(swaps))
        throw new Error(`the folder swapper failed: ${stderr.trim()}`);
      return swaps;
    })();
    return stopping;
  };
  return { stop, [Symbol.asyncDispose]: async () => void (await stop().catch(() => 0)) };
}
