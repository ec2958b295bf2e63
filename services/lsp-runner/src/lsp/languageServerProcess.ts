// One language-server child process and the JSON-RPC connection over its stdio. Knows nothing of
// sessions, workspaces or gRPC. The child leads its own process group so that stopping it also
// stops whatever it spawned (tsserver, typings installers, build helpers).
import { type ChildProcess, spawn } from "node:child_process";
import {
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-jsonrpc/node.js";
import { childEnvironment } from "./childEnvironment.js";

export interface ProcessOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string>>;
  /** Receives the child's stderr, line by line (for logs and "last error"). */
  onStderr?: (line: string) => void;
}

/** Waits in the shutdown ladder, in ms: shutdown request, then exit, SIGTERM, SIGKILL. */
export const SHUTDOWN_LADDER_MS = { shutdownRequest: 2_000, afterExit: 1_000, afterSigterm: 2_000 } as const;

/** How long `exited` waits for the rest of a dead server's stderr, in ms. */
const STDERR_DRAIN_MS = 1_000;

export class LanguageServerProcess {
  readonly connection: MessageConnection;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * True once the process runs, false when it could not be started: then nothing may be written
   * to it (a failed write inside vscode-jsonrpc's sendRequest is an unhandled rejection).
   */
  readonly spawned: Promise<boolean>;
  /** Why the command could not be started (ENOENT: not installed; EACCES: not executable). */
  spawnError: NodeJS.ErrnoException | undefined;
  private readonly child: ChildProcess;
  private closing: Promise<void> | undefined;
  private hasExited = false;

  constructor(options: ProcessOptions) {
    this.child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: childEnvironment(options.env),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true, // its own process group, killed as a whole
    });
    this.spawned = new Promise<boolean>((resolve) => {
      this.child.once("spawn", () => resolve(true));
      this.child.once("error", () => resolve(this.child.pid !== undefined));
    });
    const stderrClosed = new Promise((resolve) => this.child.stderr!.once("close", resolve));
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.hasExited = true;
        // Its last stderr lines (often the reason it exited) may still be in the pipe.
        void raceTimeout(stderrClosed, STDERR_DRAIN_MS).then(() => resolve({ code, signal }));
      });
      // A spawn failure (ENOENT, EACCES) emits "error" and never "exit"; it must not reject.
      this.child.once("error", (error) => {
        if (this.child.pid !== undefined) return;
        this.spawnError = error;
        this.hasExited = true;
        resolve({ code: null, signal: null });
      });
    });
    this.child.on("error", (error) => options.onStderr?.(`spawn failed: ${error.message}`));
    let partial = "";
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) options.onStderr?.(line);
    });
    this.child.stderr!.on("end", () => {
      if (partial.trim()) options.onStderr?.(partial);
    });
    // Writes after the child died must not throw EPIPE into the runner.
    this.child.stdin!.on("error", () => {});
    this.connection = createMessageConnection(
      new StreamMessageReader(this.child.stdout!),
      new StreamMessageWriter(this.child.stdin!),
    );
    this.connection.listen();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isRunning(): boolean {
    return !this.hasExited;
  }

  /** The shutdown ladder: shutdown request → exit notification → SIGTERM → SIGKILL (process group). */
  close(): Promise<void> {
    this.closing ??= this.runShutdownLadder();
    return this.closing;
  }

  private async runShutdownLadder(): Promise<void> {
    if (this.isRunning) {
      const polite = (async () => {
        await this.connection.sendRequest("shutdown");
        await this.connection.sendNotification("exit");
      })().catch(() => {});
      await raceTimeout(polite, SHUTDOWN_LADDER_MS.shutdownRequest);
      await raceTimeout(this.exited, SHUTDOWN_LADDER_MS.afterExit);
    }
    // The server may have exited while helpers it spawned in its group live on: signal the group.
    this.signalGroup("SIGTERM");
    if (this.isRunning) await raceTimeout(this.exited, SHUTDOWN_LADDER_MS.afterSigterm);
    this.signalGroup("SIGKILL");
    if (this.child.exitCode === null && this.child.signalCode === null) await this.exited;
    this.connection.dispose();
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }
}

async function raceTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
