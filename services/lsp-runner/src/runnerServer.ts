// Assembles a runner: sessions, engine, and the gRPC server with the standard health service.
import * as grpc from "@grpc/grpc-js";
import { addService, Runner } from "@lspmesh/proto";
import { HealthImplementation } from "grpc-health-check";
import { QueryEngine } from "./engine/queryEngine.js";
import { runnerService } from "./grpc/runnerService.js";
import { LanguageRegistry } from "./lsp/languageRegistry.js";
import { type LifecycleEvent, SessionManager, type SessionManagerOptions } from "./lsp/sessionManager.js";
import type { SessionPolicyOverrides } from "./lsp/sessionPolicy.js";
import { type WarmUpEntry, warmUpSessions } from "./sessionWarmUp.js";
import type { WorkspaceLocator } from "./workspace/workspaceLocator.js";

export interface RunnerServerOptions {
  /** host:port to listen on; port 0 picks a free one. */
  listen: string;
  locator: WorkspaceLocator;
  languages?: LanguageRegistry;
  maxFileBytes?: number;
  /** Session lifecycle: timeouts, restart budget, idle timeout, memory budget, limits (sessionPolicy.ts). */
  sessionPolicy?: SessionPolicyOverrides;
  /** Sessions started right away instead of on their first request. */
  warmUp?: readonly WarmUpEntry[];
  /** Lifecycle changes of sessions (also logged); for status events. */
  onLifecycleEvent?: (event: LifecycleEvent) => void;
  /** Every message the runner writes to a language server (tracing and tests). */
  onServerMessage?: SessionManagerOptions["onOutgoing"];
  log?: (entry: Record<string, unknown>) => void;
}

export interface RunnerServer {
  /** host:port actually bound. */
  readonly address: string;
  readonly sessions: SessionManager;
  /** Settles once every warm-up entry was started or given up on. */
  readonly warmedUp: Promise<void>;
  /** Health NOT_SERVING, finish in-flight calls (up to graceMs), stop every language server. */
  close(graceMs?: number): Promise<void>;
}

/** How long close() lets in-flight calls finish before cancelling them, in ms (default 5 000). */
const DEFAULT_GRACE_MS = 5_000;

export async function startRunnerServer(options: RunnerServerOptions): Promise<RunnerServer> {
  const log = options.log ?? (() => {});
  const languages = options.languages ?? new LanguageRegistry();
  const sessions = new SessionManager({
    maxFileBytes: options.maxFileBytes,
    policy: options.sessionPolicy,
    onLog: (entry) => log({ level: "debug", msg: "language server", ...entry }),
    onLifecycleEvent: (event) => {
      log({ level: event.kind === "failed" ? "warn" : "info", msg: `language server ${event.kind}`, ...event });
      options.onLifecycleEvent?.(event);
    },
    onOutgoing: options.onServerMessage,
  });
  const engine = new QueryEngine({ locator: options.locator, languages, sessions });
  const server = new grpc.Server({ "grpc.max_receive_message_length": 16 * 1024 * 1024 });
  const health = new HealthImplementation({ "": "SERVING", "lspmesh.v1.Runner": "SERVING" });
  health.addToServer(server);
  addService(server, Runner, runnerService(engine), (method, error) =>
    log({ level: "error", msg: "unexpected error", method, error: String((error as Error)?.stack ?? error) }),
  );
  const [host, portText] = splitHostPort(options.listen);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${portText}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const address = `${host}:${port}`;
  const warmedUp = warmUpSessions(options.warmUp ?? [], { locator: options.locator, languages, sessions, log });
  let closing: Promise<void> | undefined;
  return {
    address,
    sessions,
    warmedUp,
    close(graceMs = DEFAULT_GRACE_MS) {
      closing ??= (async () => {
        // Load balancers and the gateway see NOT_SERVING first; calls under way may finish.
        health.setStatus("", "NOT_SERVING");
        health.setStatus("lspmesh.v1.Runner", "NOT_SERVING");
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            server.forceShutdown();
            resolve();
          }, graceMs);
          server.tryShutdown(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        await sessions.close();
      })();
      return closing;
    },
  };
}

function splitHostPort(listen: string): [string, string] {
  const index = listen.lastIndexOf(":");
  if (index < 0) return [listen, "0"];
  return [listen.slice(0, index), listen.slice(index + 1)];
}
