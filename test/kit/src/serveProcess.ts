// Runs `lspmesh serve` as a real child process, the way a user runs it, and stops it with SIGINT.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/lspmesh.js", import.meta.url));
/** How long `serve` may take to print its URL, in ms. */
const START_TIMEOUT_MS = 20_000;

export interface ServeProcess extends AsyncDisposable {
  readonly url: URL;
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Everything the process wrote to stdout so far (the ready line, servers, progress lines). */
  stdout(): string;
  /** Sends SIGINT (Ctrl-C) and waits for the exit. Idempotent. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ServeOptions {
  /** The `lspmesh` executable to run (an installed copy); default this repository's CLI on this Node. */
  bin?: string;
  /** Working folder of the process (default this process's). */
  cwd?: string;
  /** Variables added to this process's environment (e.g. LSPMESH_ANSWER_CACHE). */
  env?: Record<string, string>;
}

export async function startServe(
  dir: string,
  extraArgs: string[] = [],
  options: ServeOptions = {},
): Promise<ServeProcess> {
  const args = ["serve", dir, "--port", "0", ...extraArgs];
  const child = spawn(options.bin ?? process.execPath, options.bin ? args : [CLI, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    cwd: options.cwd,
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), START_TIMEOUT_MS);
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = /at (http:\/\/\S+\/mcp)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1]!));
      }
    });
    void exited.then(({ code }) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  let stopping: ReturnType<ServeProcess["stop"]> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
      return exited;
    })();
    return stopping;
  };
  return {
    url,
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    stop,
    [Symbol.asyncDispose]: async () => void (await stop()),
  };
}

/** Every process descended from `pid` (children, grandchildren, …), from /proc. */
export function descendantPids(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; the command name (field 2) may contain spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parentOf.set(Number(entry), Number(fields[1]));
    } catch {
      // The process exited while we looked.
    }
  }
  const found: number[] = [];
  const frontier = [pid];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const [child, ppid] of parentOf) {
      if (ppid === parent) {
        found.push(child);
        frontier.push(child);
      }
    }
  }
  return found;
}

/** A process's command line, arguments joined by spaces; "" once it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie still answers kill(0) until reaped; it runs nothing.
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}
