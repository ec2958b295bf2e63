// Single-machine mode (`lspmesh serve`, `lspmesh mcp DIR`): one runner on this machine serving one
// folder as tenant LOCAL_TENANT, and one local caller who may read and write. No tokens: HTTP binds
// loopback only; stdio has no network at all.

import type { SymbolIndexReader } from "@lspmesh/events";
import { GrpcAuth, type GrpcAuthSettings } from "@lspmesh/grpc";
import { DEFAULT_CALL_TIMEOUT_MS, LOCAL_TENANT } from "@lspmesh/proto";
import { type Logger, silentLogger } from "@lspmesh/service-kit";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { NoTokenAuthenticator } from "./auth/authenticator.js";
import type { Principal } from "./auth/principal.js";
import { type RunningGateway, startGateway } from "./gateway.js";
import { createGatewayMcpServer } from "./mcp/createMcpServer.js";
import type { RunnerClient } from "./routing/runnerRouter.js";
import { StaticRunnerRouter } from "./routing/staticRouter.js";
import { SymbolIndexCache } from "./symbols/symbolIndexCache.js";
import { StaticWorkspaceResolver } from "./workspaces.js";

/** The one local caller: the user who started the process (reading only in read-only mode). */
function localPrincipal(readOnly: boolean | undefined): Principal {
  return { tenant: LOCAL_TENANT, subject: "local", scopes: readOnly ? ["lsp:read"] : ["lsp:read", "lsp:write"] };
}

function localRouter(options: LocalGatewayOptions): StaticRunnerRouter {
  return new StaticRunnerRouter(
    options.runnerAddress,
    options.runnerAuth ? GrpcAuth.from(options.runnerAuth) : undefined,
    options.runnerClient ? new Map([[options.runnerAddress, options.runnerClient]]) : undefined,
    options.runnerTransport,
  );
}

export interface LocalGatewayOptions {
  /** host:port of the runner serving the folder. */
  runnerAddress: string;
  /** The runner's credentials (serve and mcp give it a random secret per process). */
  runnerAuth?: GrpcAuthSettings;
  /**
   * The runner in this process (its inProcessClient): calls skip the loopback gRPC hop. Without
   * it, calls go over gRPC to runnerAddress.
   */
  runnerClient?: RunnerClient;
  /** How gRPC calls travel to the runner: "stream" (default, many on one stream) or "unary". */
  runnerTransport?: "stream" | "unary";
  /** Workspace id the folder is served as. */
  workspace: string;
  logger?: Logger;
  /** No tool that can write files is served (default false). */
  readOnly?: boolean;
  /** The runner's symbol index store (in memory in single-machine mode); absent = searches ask the server. */
  symbolIndex?: SymbolIndexReader;
}

/** MCP over HTTP on a loopback address (the caller checks it is one), without tokens. */
export function startLocalGateway(
  options: LocalGatewayOptions & {
    host: string;
    port: number;
    /** Browser origins allowed to call (exact, e.g. "http://localhost:5173"); default none. */
    allowedOrigins?: string[];
  },
): Promise<RunningGateway> {
  return startGateway({
    host: options.host,
    port: options.port,
    router: localRouter(options),
    workspaces: new StaticWorkspaceResolver({ tenant: LOCAL_TENANT, workspace: options.workspace }),
    authenticator: new NoTokenAuthenticator(localPrincipal(options.readOnly)),
    logger: options.logger,
    readOnly: options.readOnly,
    allowedOrigins: options.allowedOrigins,
    symbolIndex: options.symbolIndex,
  });
}

export interface LocalStdioGateway {
  /** Stops serving stdin/stdout and closes the runner connection. Idempotent. */
  close(): Promise<void>;
  /** close(), for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** MCP over this process's stdin/stdout; stdout then carries the protocol only. */
export function serveLocalStdio(options: LocalGatewayOptions): LocalStdioGateway {
  const logger = options.logger ?? silentLogger;
  const router = localRouter(options);
  const symbolIndex = options.symbolIndex ? new SymbolIndexCache(options.symbolIndex) : undefined;
  const deps = {
    router,
    workspaces: new StaticWorkspaceResolver({ tenant: LOCAL_TENANT, workspace: options.workspace }),
    logger,
    callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
    defaultPrincipal: localPrincipal(options.readOnly),
    readOnly: options.readOnly,
    symbolIndex,
  };
  const handle = serveStdio(() => createGatewayMcpServer(deps), {
    onerror: (error) => logger.warn("stdio error", { error: error.message }),
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await handle.close().catch(() => {});
      symbolIndex?.close();
      await router.close();
    })();
    return closing;
  };
  return { close, [Symbol.asyncDispose]: close };
}
