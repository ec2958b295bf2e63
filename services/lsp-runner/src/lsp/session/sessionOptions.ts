// What a language session is given (SessionOptions), what of it goes to its server's process,
// and what the session tells its owner (SessionEvent). The session's own type is a parameter
// (`Session`): languageSession.ts, which imports this file, names it, and the import graph stays acyclic.

import type { Message } from "vscode-jsonrpc/node.js";
import type { ClientCapabilities } from "vscode-languageserver-protocol";
import type { LanguageServerConfig } from "../languages/languageRegistry.js";
import type { ProcessOptions } from "../process/languageServerProcess.js";
import type { Sandbox } from "../process/sandbox.js";
import type { ChildLimits } from "../process/serverLaunch.js";
import type { StoredDiagnostics } from "./diagnosticsStore.js";
import type { SessionFailure } from "./sessionFailure.js";
import type { ServerStateName } from "./sessionState.js";

/** What a language session tells its owner, so that other layers (status and diagnostics
 * publishing, workspace watching) can follow it without the session knowing about them. */
export type SessionEventOf<Session> =
  /** The state changed (the first one, "starting", is told when the session is created). */
  | { type: "state"; session: Session; state: ServerStateName }
  /** New diagnostics were recorded for an open document (pushed or pulled). */
  | { type: "diagnostics"; session: Session; uri: string; stored: StoredDiagnostics }
  /** What the server knows of the workspace changed (its contentEpoch moved): earlier answers may differ. */
  | { type: "content"; session: Session }
  /** The session was closed; its server is stopped. Told once. */
  | { type: "closed"; session: Session };

/** The options that say what server runs and how: what the session's parts read. */
export interface SessionSettings {
  language: LanguageServerConfig;
  /** Real path of the workspace root. */
  root: string;
  maxFileBytes?: number;
  maxOpenDocuments?: number;
  /** Largest message read from the server, in bytes (default 64 MiB). */
  maxMessageBytes?: number;
  probeTimeoutMs?: number;
  maxConsecutiveTimeouts?: number;
  /** A stopped process in the server's tree fails the session (default true). */
  restartStoppedServers?: boolean;
  /** How long a server missing the liveness probe with a CPU busy is left to work, ms (default the language's maxBusyMs). */
  maxBusyMs?: number;
  limits?: ChildLimits;
  parentWatchdog?: boolean;
  /** The runner's sandbox; the server runs in it unless its language says `sandbox: "none"`. */
  sandbox?: Sandbox;
  /** What the server is told the runner can do (default: what the session itself relies on). */
  clientCapabilities?: ClientCapabilities;
  onLog?: (line: string) => void;
  /** Sees every message written to the server (tracing and tests). */
  onOutgoing?: (message: Message) => void;
}

export interface SessionOptionsOf<Session> extends SessionSettings {
  /** State changes, recorded diagnostics, close. Must not throw (errors are swallowed to protect the session). */
  onEvent?: (event: SessionEventOf<Session>) => void;
  /** Called once when the server fails on its own (not when the session is closed). */
  onFailure?: (failure: SessionFailure, session: Session) => void;
}

/** The server runs in the runner's sandbox (its own pid namespace) unless its language says `sandbox: "none"`. */
export function runsSandboxed(options: SessionSettings): boolean {
  return Boolean(options.sandbox && options.language.sandbox !== "none");
}

/** The options of the session's server process; `hooks` hear its stderr and framing problems. */
export function serverProcessOptions(
  options: SessionSettings,
  hooks: Pick<ProcessOptions, "onStderr" | "onFramingProblem">,
): ProcessOptions {
  const { language } = options;
  return {
    command: language.command,
    args: language.args,
    cwd: options.root,
    env: language.env,
    maxMessageBytes: options.maxMessageBytes,
    limits: options.limits,
    parentWatchdog: options.parentWatchdog,
    // A language requiring the sandbox where there is none was refused by the slot.
    ...(runsSandboxed(options) ? { sandbox: options.sandbox, sandboxReadOnly: language.sandboxReadOnly } : {}),
    onOutgoing: options.onOutgoing,
    ...hooks,
  };
}
