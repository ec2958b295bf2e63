// Single-machine mode, as `lspmesh serve` (MCP over loopback HTTP) and `lspmesh mcp DIR` (MCP over
// stdio) run it: a runner in this process serving one folder as tenant LOCAL_TENANT, and the
// gateway in front of it. The gateway calls the runner in process (no gRPC hop); the runner still
// listens on a free loopback port, closed to other local users by a random secret, for health checks.
import { stat } from "node:fs/promises";
import { type LocalGatewayOptions, serveLocalStdio, startLocalGateway } from "@lspmesh/gateway";
import {
  answerCacheSetting,
  LanguageConfigError,
  type RunnerHooks,
  type RunningRunner,
  startRunner,
} from "@lspmesh/lsp-runner";
import { ID_PATTERN, ID_RULE, LOCAL_TENANT } from "@lspmesh/proto";
import type { Logger } from "@lspmesh/service-kit";
import { localRunnerAuth } from "../localRunnerAuth.js";
import { ConfigFileError, UsageError } from "../usage.js";

/** MCP over HTTP on a loopback host (the caller has checked it is one). */
export interface LocalHttp {
  kind: "http";
  host: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  /** Browser origins allowed to call (exact, e.g. "http://localhost:5173"); empty = none. */
  allowedOrigins: string[];
}

/** MCP over this process's stdin/stdout: stdout then carries the protocol only. */
export interface LocalStdio {
  kind: "stdio";
}

export interface LocalServiceOptions<T extends LocalHttp | LocalStdio> {
  /** The folder served, absolute. */
  dir: string;
  /** Workspace id the folder is served as (a valid id: usageCheckedWorkspace). */
  workspace: string;
  /** JSON file overriding or adding language servers (docs/languages.md); unset = built-ins only. */
  languagesFile: string | undefined;
  /** No tool that can write files is served. */
  readOnly: boolean;
  logger: Logger;
  /** The runner's log entries and server states (serve's console); default: discarded. */
  runnerHooks?: RunnerHooks;
  transport: T;
}

export interface LocalService<T extends LocalHttp | LocalStdio> {
  /** The MCP endpoint, e.g. http://127.0.0.1:7420/mcp; none over stdio. */
  readonly url: T extends LocalHttp ? string : undefined;
  /** Stops the gateway, then the runner and every language server. Idempotent. */
  close(): Promise<void>;
  /** close(), for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Throws ConfigFileError for a bad languages file, and UsageError when the HTTP port is taken
 * (the runner is stopped again first).
 */
export async function startLocal<T extends LocalHttp | LocalStdio>(
  options: LocalServiceOptions<T>,
): Promise<LocalService<T>> {
  const runnerAuth = localRunnerAuth();
  const runner = await startLocalRunner(options, runnerAuth);
  const gatewayOptions: LocalGatewayOptions = {
    runnerAddress: runner.address,
    runnerAuth,
    runnerClient: runner.inProcessClient,
    workspace: options.workspace,
    logger: options.logger,
    readOnly: options.readOnly,
    symbolIndex: runner.symbolIndex,
  };
  const gateway = await startLocalFrontEnd(options.transport, gatewayOptions).catch(async (error: unknown) => {
    await runner.close();
    throw error;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await gateway.close();
      await runner.close();
    })();
    return closing;
  };
  return { url: gateway.url as LocalService<T>["url"], close, [Symbol.asyncDispose]: close };
}

/** The workspace id, or a UsageError saying what an id may hold. */
export function usageCheckedWorkspace(workspace: string): string {
  if (!ID_PATTERN.test(workspace)) throw new UsageError(`invalid workspace id '${workspace}': ${ID_RULE}`);
  return workspace;
}

/** Throws a UsageError naming `given` (as the user typed it) unless `dir` is a folder. */
export async function requireFolder(dir: string, given: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`'${given}' is not a folder`);
}

function startLocalRunner(
  options: LocalServiceOptions<LocalHttp | LocalStdio>,
  runnerAuth: { secret: string },
): Promise<RunningRunner> {
  return startRunner(
    {
      listen: "127.0.0.1:0",
      grpcAuth: runnerAuth,
      workspaces: { dir: options.dir, tenant: LOCAL_TENANT, workspace: options.workspace },
      languagesFile: options.languagesFile,
      answerCacheEntries: answerCacheSetting(process.env),
    },
    options.runnerHooks,
  ).catch((error: unknown) => {
    throw error instanceof LanguageConfigError ? new ConfigFileError(error.message) : error;
  });
}

/** The gateway half: HTTP (a taken port is a usage mistake) or stdio. */
async function startLocalFrontEnd(
  transport: LocalHttp | LocalStdio,
  options: LocalGatewayOptions,
): Promise<{ url: string | undefined; close(): Promise<void> }> {
  if (transport.kind === "stdio") {
    const stdio = serveLocalStdio(options);
    return { url: undefined, close: () => stdio.close() };
  }
  const { host, port, allowedOrigins } = transport;
  return startLocalGateway({ ...options, host, port, allowedOrigins }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE")
      throw new UsageError(`port ${port} on ${host} is in use: pick another with --port`);
    throw error;
  });
}
