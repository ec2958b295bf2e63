// One language-server child process and the JSON-RPC connection over its stdio. Knows nothing of
// sessions, workspaces or gRPC. The child leads its own process group so that stopping it also
// stops whatever it spawned (tsserver, typings installers, build helpers); it is launched with
// resource limits and a parent-death watchdog (serverLaunch.ts), and the messages it sends are
// checked for size before they are read (messageSizeGuard.ts).

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { waitAtMost } from "@lspmesh/service-kit";
import {
  createMessageConnection,
  type Message,
  type MessageConnection,
  type MessageWriter,
  StreamMessageReader,
} from "vscode-jsonrpc/node.js";
import { ExitNotification, ShutdownRequest } from "vscode-languageserver-protocol";
import { childEnvironment } from "./childEnvironment.js";
import { DEFAULT_MAX_MESSAGE_BYTES, type FramingProblem, MessageSizeGuard } from "./messageSizeGuard.js";
import { PipeMessageWriter } from "./pipeMessageWriter.js";
import { processesInGroups } from "./processGroups.js";
import { type Sandbox, sandboxArgs } from "./sandbox.js";
import { type ChildLimits, serverLaunch } from "./serverLaunch.js";

export interface ProcessOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string>>;
  /** Receives the child's stderr, line by line (for logs and "last error"). */
  onStderr?: (line: string) => void;
  /** Largest message read from the server, in bytes (default 64 MiB). */
  maxMessageBytes?: number;
  /** Called once when the server breaks the framing (an oversized or malformed message). */
  onFramingProblem?: (problem: FramingProblem) => void;
  limits?: ChildLimits;
  /** Parent-death watchdog in the server's process group (default true). */
  parentWatchdog?: boolean;
  /** Run inside this sandbox, seeing only `cwd` (read-write) and its installation (sandbox.ts). */
  sandbox?: Sandbox;
  /** More read-only paths inside the sandbox (a toolchain). */
  sandboxReadOnly?: readonly string[];
  /** Sees every message written to the server (tracing and tests). */
  onOutgoing?: (message: Message) => void;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Waits in the shutdown ladder, in ms: shutdown request, then exit, SIGTERM, SIGKILL; then up to
 * `groupGone` for the killed group to disappear from /proc.
 */
export const SHUTDOWN_LADDER_MS = {
  shutdownRequest: 2_000,
  afterExit: 1_000,
  afterSigterm: 2_000,
  groupGone: 2_000,
} as const;
/** How long the exit of a crashed server waits for the rest of its stderr, ms (default 500). */
const STDERR_DRAIN_MS = 500;

export class LanguageServerProcess {
  readonly connection: MessageConnection;
  readonly exited: Promise<ProcessExit>;
  private readonly child: ChildProcess;
  private closing: Promise<void> | undefined;
  private hasExited = false;

  constructor(options: ProcessOptions) {
    const launch = serverLaunch(options.command, options.args, {
      limits: options.limits,
      parentWatchdog: options.parentWatchdog,
      ...(options.sandbox
        ? {
            sandbox: {
              bwrapPath: options.sandbox.bwrapPath,
              args: sandboxArgs({
                workspace: options.cwd,
                command: options.command,
                args: options.args,
                readOnly: options.sandboxReadOnly,
              }),
            },
          }
        : {}),
    });
    this.child = spawn(launch.command, launch.args, {
      cwd: options.cwd,
      env: childEnvironment(options.env),
      // fd 3 is the watchdog's end of a socket pair: it sees EOF when the runner is gone.
      stdio: launch.watchdogFd ? ["pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"],
      detached: true, // its own process group, killed as a whole
    });
    const stderrClosed = once(this.child.stderr!, "close").catch(() => {});
    this.exited = once(this.child, "exit").then(async ([code, signal]) => {
      this.hasExited = true;
      // Helpers of a server that died on its own have no one left to serve.
      if (!this.closing) this.signalGroup("SIGKILL");
      // Its last words on stderr say why: let them arrive (bounded: something outside the group
      // may still hold the pipe).
      await waitAtMost(stderrClosed, STDERR_DRAIN_MS);
      return { code: code as number | null, signal: signal as NodeJS.Signals | null };
    });
    // A spawn failure (ENOENT) surfaces as "error" then "exit"; keep it from crashing the runner.
    this.child.on("error", (error) => options.onStderr?.(`spawn failed: ${error.message}`));
    let partial = "";
    this.child
      .stderr!.setEncoding("utf8")
      .on("data", (chunk: string) => {
        const lines = (partial + chunk).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) if (line.trim()) options.onStderr?.(line);
      })
      .on("end", () => {
        if (partial.trim()) options.onStderr?.(partial);
      });
    // Writes after the child died must not throw EPIPE into the runner.
    this.child.stdin!.on("error", () => {});
    this.child.stdio[3]?.on("error", () => {});
    const guard = new MessageSizeGuard(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, (problem) =>
      options.onFramingProblem?.(problem),
    );
    const writer = new PipeMessageWriter(this.child.stdin!);
    this.connection = createMessageConnection(
      new StreamMessageReader(this.child.stdout!.pipe(guard)),
      new ChildWriter(writer, () => this.child.stdin!.destroyed || !this.isRunning, options.onOutgoing),
    );
    this.connection.listen();
  }

  /** The server's pid, which is also its process-group id. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  get isRunning(): boolean {
    return !this.hasExited;
  }

  /**
   * The shutdown ladder: shutdown request → exit notification → SIGTERM → SIGKILL (process group).
   * `polite: false` skips the requests, for a server that no longer answers. Idempotent: the first
   * call decides the way down.
   */
  close(options: { polite?: boolean } = {}): Promise<void> {
    this.closing ??= this.runShutdownLadder(options.polite ?? true);
    return this.closing;
  }

  private async runShutdownLadder(polite: boolean): Promise<void> {
    if (this.isRunning && polite) {
      const request = (async () => {
        await this.connection.sendRequest(ShutdownRequest.type);
        await this.connection.sendNotification(ExitNotification.type);
      })().catch(() => {});
      await waitAtMost(request, SHUTDOWN_LADDER_MS.shutdownRequest);
      await waitAtMost(this.exited, SHUTDOWN_LADDER_MS.afterExit);
    }
    // The server may have exited while helpers it spawned in its group live on: signal the group.
    // SIGCONT lets a stopped group act on the SIGTERM.
    this.signalGroup("SIGTERM");
    this.signalGroup("SIGCONT");
    if (this.isRunning) await waitAtMost(this.exited, SHUTDOWN_LADDER_MS.afterSigterm);
    this.signalGroup("SIGKILL");
    if (this.child.exitCode === null && this.child.signalCode === null) await this.exited;
    // SIGKILL is delivered at once but dying takes a moment: closed means gone.
    if (this.child.pid !== undefined) await groupGone(this.child.pid, SHUTDOWN_LADDER_MS.groupGone);
    this.connection.dispose();
    this.child.stdio[3]?.destroy();
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

/** A writer that shows each message to `tap` before writing it. */
/**
 * The writer to the server's stdin: tells `tap` what is sent, and turns a write to a server that
 * is already gone (killed mid-write) into a no-op. Its exit, reported by the process, is what the
 * callers hear; a rejected write would otherwise surface wherever a send was not awaited.
 */
class ChildWriter implements MessageWriter {
  readonly onError: MessageWriter["onError"];
  readonly onClose: MessageWriter["onClose"];

  constructor(
    private readonly inner: MessageWriter,
    private readonly childGone: () => boolean,
    private readonly tap?: (message: Message) => void,
  ) {
    this.onError = inner.onError;
    this.onClose = inner.onClose;
  }

  write(message: Message): Promise<void> {
    this.tap?.(message);
    return this.inner.write(message).catch((error: unknown) => {
      if (this.childGone()) return;
      throw error;
    });
  }

  end(): void {
    this.inner.end();
  }

  dispose(): void {
    this.inner.dispose();
  }
}

/** Resolves once no live (non-zombie) process is left in the group, or after `limitMs`. */
async function groupGone(pgid: number, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const alive = (await processesInGroups(new Set([pgid]))).filter((p) => p.state !== "Z");
    if (alive.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
