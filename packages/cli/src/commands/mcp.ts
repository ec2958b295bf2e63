// `lspmesh mcp`: MCP over stdio for desktop agents. Embedded (a runner in this process serving a
// folder, like `serve`) or proxying to a gateway over HTTP with a bearer token from the
// environment. stdout carries the protocol only; diagnostics go to stderr.
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  createGatewayMcpServer,
  createJsonLogger,
  type Principal,
  StaticRunnerRouter,
  StaticWorkspaceResolver,
} from "@lspmesh/gateway";
import { SingleWorkspaceLocator, startRunnerServer } from "@lspmesh/lsp-runner";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { UsageError } from "../usage.js";

const HELP = `usage: lspmesh mcp [dir] [--workspace default]                embedded: serve dir over stdio
       lspmesh mcp --gateway URL [--token-env LSPMESH_TOKEN]     proxy: forward to a gateway

Embedded mode runs a language-server runner in this process (no network, no token), like serve.
Proxy mode forwards every tool to the gateway at URL (e.g. https://lspmesh.example.com/mcp) with
Authorization: Bearer <the value of the --token-env variable, LSPMESH_TOKEN by default>.
The protocol runs on stdin/stdout; logs go to stderr. Closing stdin stops it.`;

const LOCAL_TENANT = "local";
/** Deadline of one forwarded call, in ms (the gateway applies its own runner deadlines). */
const PROXY_TIMEOUT_MS = 120_000;

export async function runMcpCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      gateway: { type: "string" },
      "token-env": { type: "string" },
      workspace: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.error(HELP);
    return;
  }
  if (values.gateway) {
    if (positionals.length > 0)
      throw new UsageError("give either a folder (embedded) or --gateway URL (proxy), not both");
    await runProxy(values.gateway, values["token-env"] ?? "LSPMESH_TOKEN");
    return;
  }
  if (positionals.length > 1) throw new UsageError(`mcp takes one folder, got ${positionals.length}`);
  await runEmbedded(positionals[0] ?? ".", values.workspace ?? "default");
}

async function runEmbedded(folder: string, workspace: string): Promise<void> {
  const dir = resolve(folder);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`'${folder}' is not a folder`);
  if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(workspace)) {
    throw new UsageError(`invalid workspace id '${workspace}': use a-z, 0-9, '_' and '-' (1–63 characters)`);
  }
  const logger = createJsonLogger({ level: process.env.LSPMESH_LOG_LEVEL === "debug" ? "debug" : "warn" });
  const runner = await startRunnerServer({
    listen: "127.0.0.1:0",
    locator: new SingleWorkspaceLocator(dir, LOCAL_TENANT, workspace),
  });
  const router = new StaticRunnerRouter(runner.address);
  // The local user who started the process: reads and writes, like `serve` on loopback.
  const principal: Principal = { tenant: LOCAL_TENANT, subject: "local", scopes: ["lsp:read", "lsp:write"] };
  const deps = {
    router,
    workspaces: new StaticWorkspaceResolver({ tenant: LOCAL_TENANT, workspace }),
    logger,
    callTimeoutMs: 30_000,
    defaultPrincipal: principal,
  };
  const handle = serveStdio(() => createGatewayMcpServer(deps), {
    onerror: (error) => logger.warn("stdio error", { error: error.message }),
  });
  let closing: Promise<void> | undefined;
  const shutdown = () => {
    closing ??= (async () => {
      await handle.close().catch(() => {});
      await router.close();
      await runner.close();
    })().then(() => process.exit(0));
    return closing;
  };
  process.stdin.once("end", shutdown);
  process.stdin.once("close", shutdown);
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  process.stderr.write(`lspmesh mcp: serving ${dir} as workspace '${workspace}' over stdio\n`);
}

async function runProxy(gateway: string, tokenEnv: string): Promise<void> {
  let url: URL;
  try {
    url = new URL(gateway);
  } catch {
    throw new UsageError(`invalid --gateway '${gateway}': give the MCP URL, e.g. https://lspmesh.example.com/mcp`);
  }
  const token = process.env[tokenEnv]?.trim();
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const upstream = new Client({ name: "lspmesh-mcp-proxy", version: "0.1.0" });
  try {
    await upstream.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  } catch (error) {
    const hint = token ? "" : ` (no token: set ${tokenEnv})`;
    throw new UsageError(`cannot reach the gateway at ${url.href}${hint}: ${(error as Error).message}`);
  }
  const remote = upstream.getServerVersion();
  const server = new Server(
    { name: "lspmesh", version: remote?.version ?? "0.1.0" },
    { capabilities: { tools: {} }, instructions: upstream.getInstructions() },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    return upstream.callTool(request.params, undefined, {
      signal: extra.signal,
      timeout: PROXY_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      // The gateway's progress goes back to the desktop agent under the agent's own token.
      onprogress:
        progressToken === undefined
          ? undefined
          : (progress) => {
              void extra.sendNotification({ method: "notifications/progress", params: { ...progress, progressToken } });
            },
    });
  });
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    void Promise.allSettled([server.close(), upstream.close()]).then(() => process.exit(0));
  };
  server.onclose = shutdown;
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  await server.connect(new StdioServerTransport());
  process.stderr.write(`lspmesh mcp: forwarding stdio to ${url.href}\n`);
}
