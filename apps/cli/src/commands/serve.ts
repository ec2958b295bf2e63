// `lspmesh serve [dir]`: single-machine mode over loopback HTTP (local/startLocal.ts), serving
// `dir` as tenant "local", workspace "default", with console lines a person at the terminal reads.
import { languageServers, type RunnerHooks } from "@lspmesh/lsp-runner";
import { DEFAULT_GATEWAY_PORT, DEFAULT_WORKSPACE } from "@lspmesh/proto";
import {
  closeOnSignals,
  createJsonLogger,
  isLoopbackHost,
  type Logger,
  parseFlags,
  startTracing,
} from "@lspmesh/service-kit";
import { httpConfigs, stdioLaunch } from "../agentConfig.js";
import { requireFolder, startLocal, usageCheckedWorkspace } from "../local/startLocal.js";
import { ServerConsole } from "../serverConsole.js";
import { folderToServe, parseOrigin, parsePort, UsageError } from "../usage.js";

export const HELP = `usage: lspmesh serve [dir] [--port ${DEFAULT_GATEWAY_PORT}] [--host 127.0.0.1] [--workspace ${DEFAULT_WORKSPACE}] [--languages FILE] [--read-only] [--allow-origin ORIGIN] [--quiet] [--log-format text|json]

Serves dir over MCP at http://HOST:PORT/mcp (without dir: the current folder, never / or your home folder).
--languages FILE     overrides or adds language servers (JSON; see docs/languages.md)
--read-only          serve no tool that can write files (code actions, format, rename, apply)
--allow-origin URL   let browser pages from this exact origin call (repeatable; default: none)
--quiet, -q          print only the ready line (no servers, agent configs or progress lines)
--log-format json    JSON log lines on stderr instead of the console lines (default text)
No token is needed on loopback. Stop with Ctrl-C: every language server is stopped with it.`;

/** serve's flags, as HELP describes them. */
const SERVE_FLAGS = {
  port: { type: "string" },
  host: { type: "string" },
  workspace: { type: "string" },
  languages: { type: "string" },
  "read-only": { type: "boolean" },
  "allow-origin": { type: "string", multiple: true },
  quiet: { type: "boolean", short: "q" },
  "log-format": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** The flags as parsed (help aside). */
interface ServeFlags {
  port?: string | undefined;
  host?: string | undefined;
  workspace?: string | undefined;
  languages?: string | undefined;
  "read-only"?: boolean | undefined;
  "allow-origin"?: string[] | undefined;
  quiet?: boolean | undefined;
  "log-format"?: string | undefined;
}

/** What serve was asked to do, checked. */
interface ServeSettings {
  dir: string;
  /** No folder was given: the current folder is served. */
  implicit: boolean;
  host: string;
  port: number;
  workspace: string;
  languagesFile: string | undefined;
  readOnly: boolean;
  allowedOrigins: string[];
  /** Only the ready line on stdout. */
  quiet: boolean;
  /** JSON log lines on stderr instead of the console lines. */
  json: boolean;
}

export async function runServeCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags({ args, allowPositionals: true, options: SERVE_FLAGS });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const settings = await serveSettings(values, positionals);
  const logger = createJsonLogger({
    service: "serve",
    // JSON logs: every entry from info up on stderr, instead of the console lines.
    level: process.env.LSPMESH_LOG_LEVEL === "debug" ? "debug" : settings.json ? "info" : "warn",
  });
  const { host, port, allowedOrigins } = settings;
  // Off unless OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set: gateway and runner spans of this one process.
  const tracing = await startTracing({
    serviceName: "lspmesh-serve",
    env: process.env,
    warn: (message) => logger.warn(message),
  });
  const local = await startLocal({
    dir: settings.dir,
    workspace: settings.workspace,
    languagesFile: settings.languagesFile,
    readOnly: settings.readOnly,
    logger,
    runnerHooks: runnerHooks(logger, settings),
    transport: { kind: "http", host, port, allowedOrigins },
  });
  closeOnSignals(() => local.close().finally(() => tracing.close()), {
    log: (message) => process.stderr.write(`lspmesh: ${message}\n`),
  });
  const mode = settings.readOnly ? " (read-only: no tool writes files)" : "";
  const which = settings.implicit ? " (no folder given: the current folder)" : "";
  process.stdout.write(
    `lspmesh: serving ${settings.dir}${which} as workspace '${settings.workspace}' at ${local.url}${mode}\n`,
  );
  if (settings.quiet || settings.json) return;
  await printConnectHelp(settings, local.url);
}

/** The flags checked, in the order their mistakes are reported. */
async function serveSettings(values: ServeFlags, positionals: string[]): Promise<ServeSettings> {
  if (positionals.length > 1) throw new UsageError(`serve takes one folder, got ${positionals.length}`);
  const { dir, implicit } = folderToServe(positionals[0], "serve");
  const allowedOrigins = (values["allow-origin"] ?? []).map(parseOrigin);
  await requireFolder(dir, positionals[0] ?? ".");
  const port = parsePort(values.port, DEFAULT_GATEWAY_PORT);
  const host = values.host ?? "127.0.0.1";
  if (!isLoopbackHost(host)) {
    throw new UsageError(
      `serve runs without tokens, so it binds to loopback only (not '${host}'); use \`lspmesh gateway\` with API keys or JWTs to serve a network`,
    );
  }
  const workspace = usageCheckedWorkspace(values.workspace ?? DEFAULT_WORKSPACE);
  const logFormat = values["log-format"] ?? "text";
  if (logFormat !== "text" && logFormat !== "json") {
    throw new UsageError(`--log-format must be text or json (got '${logFormat}')`);
  }
  return {
    dir,
    implicit,
    host,
    port,
    workspace,
    languagesFile: values.languages,
    readOnly: values["read-only"] ?? false,
    allowedOrigins,
    quiet: values.quiet ?? false,
    json: logFormat === "json",
  };
}

/** Runner log entries go to the logger; server states to the console lines unless quiet or JSON. */
function runnerHooks(logger: Logger, settings: ServeSettings): RunnerHooks {
  const progressLines =
    settings.quiet || settings.json ? undefined : new ServerConsole((line) => process.stdout.write(`${line}\n`));
  return {
    log: ({ level, msg, ...fields }) =>
      logger[level === "error" || level === "warn" || level === "info" ? level : "debug"](String(msg), fields),
    ...(progressLines
      ? { onServerState: progressLines.onServerState, onLifecycleEvent: progressLines.onLifecycleEvent }
      : {}),
  };
}

/** For a person at the terminal: which language servers were found, and how to connect an agent. */
async function printConnectHelp(settings: ServeSettings, url: string): Promise<void> {
  const servers = await languageServers(settings.languagesFile);
  const found = servers.filter((server) => server.executable).map((server) => `${server.id} (${server.server})`);
  const missing = servers.filter((server) => !server.executable).map((server) => server.id);
  process.stdout.write(
    `Language servers: ${found.join(", ") || "none"}${missing.length > 0 ? `; not installed: ${missing.join(", ")} (lspmesh --version says how to install them)` : ""}\n`,
  );
  const launch = stdioLaunch(settings.dir, settings.readOnly ? ["--read-only"] : []);
  process.stdout.write(`Connect an agent:\n${httpConfigs(url, launch).join("\n")}\n`);
}
