// `lspmesh mcp`: MCP over stdio for desktop agents. Embedded (a runner in this process serving a
// folder, like `serve`) or proxying to a gateway over HTTP with a bearer token from the
// environment. stdout carries the protocol only; diagnostics go to stderr.
import { resolve } from "node:path";
import { DEFAULT_WORKSPACE } from "@lspmesh/proto";
import { createJsonLogger, parseFlags } from "@lspmesh/service-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Server } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { stdioConfigs, stdioLaunch } from "../agentConfig.js";
import { requireFolder, startLocal, usageCheckedWorkspace } from "../local/startLocal.js";
import { UsageError } from "../usage.js";

export const HELP = `usage: lspmesh mcp DIR [--workspace ${DEFAULT_WORKSPACE}] [--read-only] [--languages FILE]   embedded: serve DIR over stdio
       lspmesh mcp --gateway URL [--token-env LSPMESH_TOKEN]     proxy: forward to a gateway

Embedded mode runs a language-server runner in this process (no network, no token), like serve.
DIR is required: MCP clients often start servers in / or their own folder. --read-only serves no
tool that can write files; --languages FILE overrides or adds language servers (docs/languages.md).
Proxy mode forwards every tool to the gateway at URL (e.g. https://lspmesh.example.com/mcp) with
Authorization: Bearer <the value of the --token-env variable, LSPMESH_TOKEN by default>.
The protocol runs on stdin/stdout; logs go to stderr. Closing stdin stops it.`;

/** Deadline of one forwarded call, in ms, reset by progress (the gateway applies its own runner deadlines). */
const PROXY_TIMEOUT_MS = 120_000;

export async function runMcpCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags({
    args,
    allowPositionals: true,
    options: {
      gateway: { type: "string" },
      "token-env": { type: "string" },
      workspace: { type: "string" },
      "read-only": { type: "boolean" },
      languages: { type: "string" },
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
  const folder = positionals[0];
  if (folder === undefined) {
    throw new UsageError(
      `give the project folder, e.g. lspmesh mcp ${process.cwd() === "/" ? "/path/to/project" : process.cwd()}`,
    );
  }
  await runEmbedded(folder, values.workspace ?? DEFAULT_WORKSPACE, values["read-only"] ?? false, values.languages);
}

/** Runs `close` once when stdin ends or on SIGINT/SIGTERM, then exits 0; returns that shutdown. */
function stopWhenDone(close: () => Promise<void>): () => void {
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    void close()
      .catch(() => {})
      .then(() => process.exit(0));
  };
  process.stdin.once("end", shutdown);
  process.stdin.once("close", shutdown);
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  return shutdown;
}

async function runEmbedded(
  folder: string,
  workspace: string,
  readOnly: boolean,
  languagesFile: string | undefined,
): Promise<void> {
  const dir = resolve(folder);
  await requireFolder(dir, folder);
  usageCheckedWorkspace(workspace);
  const logger = createJsonLogger({
    service: "mcp",
    level: process.env.LSPMESH_LOG_LEVEL === "debug" ? "debug" : "warn",
  });
  // No runner hooks: the runner's own log entries are discarded; stderr has the logger's warnings.
  const local = await startLocal({ dir, workspace, languagesFile, readOnly, logger, transport: { kind: "stdio" } });
  stopWhenDone(() => local.close());
  const mode = readOnly ? " (read-only: no tool writes files)" : "";
  process.stderr.write(`lspmesh mcp: serving ${dir} as workspace '${workspace}' over stdio${mode}\n`);
  // A person at a terminal (an agent never gives a TTY): how to have an agent start it instead.
  if (process.stdin.isTTY) {
    const launch = stdioLaunch(dir, readOnly ? ["--read-only"] : []);
    process.stderr.write(
      `Have your agent start it (absolute paths, any working folder):\n${stdioConfigs(launch).join("\n")}\n`,
    );
  }
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
  server.setRequestHandler("tools/list", (request) => upstream.listTools(request.params));
  server.setRequestHandler("tools/call", (request, ctx) => {
    const progressToken = request.params._meta?.progressToken;
    return upstream.callTool(request.params, {
      signal: ctx.mcpReq.signal,
      timeout: PROXY_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      // The gateway's progress goes back to the desktop agent under the agent's own token.
      onprogress:
        progressToken === undefined
          ? undefined
          : (progress) => {
              void ctx.mcpReq.notify({ method: "notifications/progress", params: { ...progress, progressToken } });
            },
    });
  });
  server.onclose = stopWhenDone(async () => {
    await Promise.allSettled([server.close(), upstream.close()]);
  });
  await server.connect(new StdioServerTransport());
  process.stderr.write(`lspmesh mcp: forwarding stdio to ${url.href}\n`);
}
