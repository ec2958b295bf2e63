// `lspmesh serve [dir]`: single-machine mode. One process runs a runner on a loopback port and
// the gateway in front of it, serving `dir` as tenant "local", workspace "default".
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  createJsonLogger,
  NoTokenAuthenticator,
  StaticRunnerRouter,
  StaticWorkspaceResolver,
  startGateway,
} from "@lspmesh/gateway";
import {
  LanguageConfigError,
  loadLanguageRegistry,
  SingleWorkspaceLocator,
  startRunnerServer,
} from "@lspmesh/lsp-runner";
import { closeOnSignals } from "../shutdown.js";
import { parsePort, UsageError } from "../usage.js";

const HELP = `usage: lspmesh serve [dir] [--port 7420] [--host 127.0.0.1] [--workspace default] [--languages FILE]

Serves dir (default: the current folder) over MCP at http://HOST:PORT/mcp.
--languages FILE overrides or adds language servers (JSON; see docs/languages.md).
No token is needed on loopback. Stop with Ctrl-C: every language server is stopped with it.`;

function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** Single-machine tenant (DESIGN.md 3.1). */
const LOCAL_TENANT = "local";

export async function runServeCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      workspace: { type: "string" },
      languages: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (positionals.length > 1) throw new UsageError(`serve takes one folder, got ${positionals.length}`);
  const dir = resolve(positionals[0] ?? ".");
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`'${positionals[0] ?? "."}' is not a folder`);
  const port = parsePort(values.port, 7420);
  const host = values.host ?? "127.0.0.1";
  if (!isLoopbackAddress(host)) {
    throw new UsageError(
      `serve runs without tokens, so it binds to loopback only (not '${host}'); use \`lspmesh gateway\` with API keys or JWTs to serve a network`,
    );
  }
  const workspace = values.workspace ?? "default";
  if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(workspace)) {
    throw new UsageError(`invalid workspace id '${workspace}': use a-z, 0-9, '_' and '-' (1–63 characters)`);
  }

  const languages = await loadLanguageRegistry(values.languages).catch((error: unknown) => {
    throw error instanceof LanguageConfigError ? new UsageError(error.message) : error;
  });

  const logger = createJsonLogger({ level: process.env.LSPMESH_LOG_LEVEL === "debug" ? "debug" : "warn" });
  const runner = await startRunnerServer({
    listen: "127.0.0.1:0",
    locator: new SingleWorkspaceLocator(dir, LOCAL_TENANT, workspace),
    languages,
  });
  const gateway = await startGateway({
    host,
    port,
    router: new StaticRunnerRouter(runner.address),
    workspaces: new StaticWorkspaceResolver({ tenant: LOCAL_TENANT, workspace }),
    // Loopback single machine: no tokens; the one local caller may read and write.
    authenticator: new NoTokenAuthenticator({
      tenant: LOCAL_TENANT,
      subject: "local",
      scopes: ["lsp:read", "lsp:write"],
    }),
    logger,
  }).catch(async (error: NodeJS.ErrnoException) => {
    await runner.close();
    if (error.code === "EADDRINUSE")
      throw new UsageError(`port ${port} on ${host} is in use: pick another with --port`);
    throw error;
  });
  closeOnSignals(
    async () => {
      await gateway.close();
      await runner.close();
    },
    (line) => process.stderr.write(`${line}\n`),
  );
  process.stdout.write(`lspmesh: serving ${dir} as workspace '${workspace}' at ${gateway.url}\n`);
}
