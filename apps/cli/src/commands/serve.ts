// `lspmesh serve [dir]`: single-machine mode. One process runs a runner and the gateway in front of
// it, serving `dir` as tenant "local", workspace "default". The gateway calls the runner in process
// (no gRPC hop); the runner still listens on a loopback port, with a random secret, for health checks.
import { stat } from "node:fs/promises";
import { startLocalGateway } from "@lspmesh/gateway";
import { answerCacheSetting, LanguageConfigError, languageServers, startRunner } from "@lspmesh/lsp-runner";
import { DEFAULT_GATEWAY_PORT, DEFAULT_WORKSPACE, ID_PATTERN, ID_RULE, LOCAL_TENANT } from "@lspmesh/proto";
import { closeOnSignals, createJsonLogger, parseFlags } from "@lspmesh/service-kit";
import { httpConfigs, stdioLaunch } from "../agentConfig.js";
import { localRunnerAuth } from "../localRunnerAuth.js";
import { ServerConsole } from "../serverConsole.js";
import { ConfigFileError, folderToServe, parseOrigin, parsePort, UsageError } from "../usage.js";

export const HELP = `usage: lspmesh serve [dir] [--port ${DEFAULT_GATEWAY_PORT}] [--host 127.0.0.1] [--workspace ${DEFAULT_WORKSPACE}] [--languages FILE] [--read-only] [--allow-origin ORIGIN] [--quiet] [--log-format text|json]

Serves dir over MCP at http://HOST:PORT/mcp (without dir: the current folder, never / or your home folder).
--languages FILE     overrides or adds language servers (JSON; see docs/languages.md)
--read-only          serve no tool that can write files (code actions, format, rename, apply)
--allow-origin URL   let browser pages from this exact origin call (repeatable; default: none)
--quiet, -q          print only the ready line (no servers, agent configs or progress lines)
--log-format json    JSON log lines on stderr instead of the console lines (default text)
No token is needed on loopback. Stop with Ctrl-C: every language server is stopped with it.`;

function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

export async function runServeCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags({
    args,
    allowPositionals: true,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      workspace: { type: "string" },
      languages: { type: "string" },
      "read-only": { type: "boolean" },
      "allow-origin": { type: "string", multiple: true },
      quiet: { type: "boolean", short: "q" },
      "log-format": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (positionals.length > 1) throw new UsageError(`serve takes one folder, got ${positionals.length}`);
  const { dir, implicit } = folderToServe(positionals[0], "serve");
  const allowedOrigins = (values["allow-origin"] ?? []).map(parseOrigin);
  const readOnly = values["read-only"] ?? false;
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`'${positionals[0] ?? "."}' is not a folder`);
  const port = parsePort(values.port, DEFAULT_GATEWAY_PORT);
  const host = values.host ?? "127.0.0.1";
  if (!isLoopbackAddress(host)) {
    throw new UsageError(
      `serve runs without tokens, so it binds to loopback only (not '${host}'); use \`lspmesh gateway\` with API keys or JWTs to serve a network`,
    );
  }
  const workspace = values.workspace ?? DEFAULT_WORKSPACE;
  if (!ID_PATTERN.test(workspace)) throw new UsageError(`invalid workspace id '${workspace}': ${ID_RULE}`);

  const logFormat = values["log-format"] ?? "text";
  if (logFormat !== "text" && logFormat !== "json") {
    throw new UsageError(`--log-format must be text or json (got '${logFormat}')`);
  }
  const quiet = values.quiet ?? false;
  // JSON logs: every entry from info up on stderr, instead of the console lines.
  const json = logFormat === "json";
  const logger = createJsonLogger({
    service: "serve",
    level: process.env.LSPMESH_LOG_LEVEL === "debug" ? "debug" : json ? "info" : "warn",
  });
  const progressLines = quiet || json ? undefined : new ServerConsole((line) => process.stdout.write(`${line}\n`));
  const runnerAuth = localRunnerAuth();
  const runner = await startRunner(
    {
      listen: "127.0.0.1:0",
      grpcAuth: runnerAuth,
      workspaces: { dir, tenant: LOCAL_TENANT, workspace },
      languagesFile: values.languages,
      answerCacheEntries: answerCacheSetting(process.env),
    },
    {
      log: ({ level, msg, ...fields }) =>
        logger[level === "error" || level === "warn" || level === "info" ? level : "debug"](String(msg), fields),
      ...(progressLines
        ? { onServerState: progressLines.onServerState, onLifecycleEvent: progressLines.onLifecycleEvent }
        : {}),
    },
  ).catch((error: unknown) => {
    throw error instanceof LanguageConfigError ? new ConfigFileError(error.message) : error;
  });
  const gateway = await startLocalGateway({
    host,
    port,
    runnerAddress: runner.address,
    runnerAuth,
    runnerClient: runner.inProcessClient,
    workspace,
    logger,
    readOnly,
    allowedOrigins,
    symbolIndex: runner.symbolIndex,
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
    { log: (message) => process.stderr.write(`lspmesh: ${message}\n`) },
  );
  const mode = readOnly ? " (read-only: no tool writes files)" : "";
  const which = implicit ? " (no folder given: the current folder)" : "";
  process.stdout.write(`lspmesh: serving ${dir}${which} as workspace '${workspace}' at ${gateway.url}${mode}\n`);
  if (quiet || json) return;
  const servers = await languageServers(values.languages);
  const found = servers.filter((server) => server.executable).map((server) => `${server.id} (${server.server})`);
  const missing = servers.filter((server) => !server.executable).map((server) => server.id);
  process.stdout.write(
    `Language servers: ${found.join(", ") || "none"}${missing.length > 0 ? `; not installed: ${missing.join(", ")} (lspmesh --version says how to install them)` : ""}\n`,
  );
  const launch = stdioLaunch(dir, readOnly ? ["--read-only"] : []);
  process.stdout.write(`Connect an agent:\n${httpConfigs(gateway.url, launch).join("\n")}\n`);
}
