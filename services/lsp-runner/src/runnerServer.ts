// Assembles a runner: sessions, engine, and the gRPC server with the standard health service.
import * as grpc from "@grpc/grpc-js";
import { addService, Runner } from "@lspmesh/proto";
import { HealthImplementation } from "grpc-health-check";
import { QueryEngine } from "./engine/queryEngine.js";
import { runnerService } from "./grpc/runnerService.js";
import { LanguageRegistry } from "./lsp/languageRegistry.js";
import { SessionManager } from "./lsp/sessionManager.js";
import type { WorkspaceLocator } from "./workspace/workspaceLocator.js";

export interface RunnerServerOptions {
  /** host:port to listen on; port 0 picks a free one. */
  listen: string;
  locator: WorkspaceLocator;
  languages?: LanguageRegistry;
  maxFileBytes?: number;
  log?: (entry: Record<string, unknown>) => void;
}

export interface RunnerServer {
  /** host:port actually bound. */
  readonly address: string;
  readonly sessions: SessionManager;
  /** Health NOT_SERVING, finish in-flight calls (up to graceMs), stop every language server. */
  close(graceMs?: number): Promise<void>;
}

/** How long close() lets in-flight calls finish before cancelling them, in ms (default 5 000). */
const DEFAULT_GRACE_MS = 5_000;

export async function startRunnerServer(options: RunnerServerOptions): Promise<RunnerServer> {
  const log = options.log ?? (() => {});
  const sessions = new SessionManager({
    maxFileBytes: options.maxFileBytes,
    onLog: (entry) => log({ level: "debug", msg: "language server", ...entry }),
  });
  const engine = new QueryEngine({
    locator: options.locator,
    languages: options.languages ?? new LanguageRegistry(),
    sessions,
  });
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
  let closing: Promise<void> | undefined;
  return {
    address,
    sessions,
    close(graceMs = DEFAULT_GRACE_MS) {
      closing ??= (async () => {
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
