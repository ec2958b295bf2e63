// Standalone configuration from LSPMESH_* environment variables and command-line flags (flags
// win). Pure: main.ts hands in process.env and process.argv.
import { parseArgs } from "node:util";
import { DEFAULT_CALL_TIMEOUT_MS } from "./gateway.js";
import type { LogLevel } from "./logger.js";
import { ID_PATTERN } from "./workspaces.js";

export interface GatewayConfig {
  runnerAddress: string;
  host: string;
  port: number;
  tenant: string;
  workspace: string;
  callTimeoutMs: number;
  allowedHosts: string[] | undefined;
  allowedOrigins: string[] | undefined;
  logLevel: LogLevel;
}

/** Defaults: single-machine mode on loopback (DESIGN.md 3.5). */
const DEFAULTS = { host: "127.0.0.1", port: 7420, tenant: "local", workspace: "default" } as const;

const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

export const USAGE = `usage: lspmesh-gateway [--runner host:port] [--host H] [--port N] [--tenant T] [--workspace W]
environment: LSPMESH_RUNNER_ADDRESS (required unless --runner), LSPMESH_HOST (${DEFAULTS.host}),
  LSPMESH_PORT (${DEFAULTS.port}), LSPMESH_TENANT (${DEFAULTS.tenant}), LSPMESH_WORKSPACE (${DEFAULTS.workspace}),
  LSPMESH_CALL_TIMEOUT_MS (${DEFAULT_CALL_TIMEOUT_MS}), LSPMESH_ALLOWED_HOSTS, LSPMESH_ALLOWED_ORIGINS (comma-separated),
  LSPMESH_LOG_LEVEL (info)`;

/** Throws an Error whose message says which setting is wrong and how to fix it. */
export function gatewayConfig(argv: string[], env: Record<string, string | undefined>): GatewayConfig {
  const { values: flags } = parseArgs({
    args: argv,
    options: {
      runner: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      tenant: { type: "string" },
      workspace: { type: "string" },
    },
    strict: true,
  });
  const setting = (flag: string | undefined, name: string) => flag ?? nonEmpty(env[name]);

  const runnerAddress = setting(flags.runner, "LSPMESH_RUNNER_ADDRESS");
  if (!runnerAddress) throw new Error("no runner address: set LSPMESH_RUNNER_ADDRESS (or --runner) to host:port");
  const tenant = setting(flags.tenant, "LSPMESH_TENANT") ?? DEFAULTS.tenant;
  const workspace = setting(flags.workspace, "LSPMESH_WORKSPACE") ?? DEFAULTS.workspace;
  for (const [name, id] of [
    ["tenant", tenant],
    ["workspace", workspace],
  ]) {
    if (!ID_PATTERN.test(id ?? ""))
      throw new Error(`invalid ${name} '${id}': use lowercase letters, digits, '_' or '-'`);
  }
  const logLevel = (nonEmpty(env.LSPMESH_LOG_LEVEL) ?? "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw new Error(`invalid LSPMESH_LOG_LEVEL '${logLevel}': use ${LOG_LEVELS.join(", ")}`);

  return {
    runnerAddress,
    host: setting(flags.host, "LSPMESH_HOST") ?? DEFAULTS.host,
    port: integer(setting(flags.port, "LSPMESH_PORT"), "port (LSPMESH_PORT)", DEFAULTS.port, 0, 65_535),
    tenant,
    workspace,
    callTimeoutMs: integer(env.LSPMESH_CALL_TIMEOUT_MS, "LSPMESH_CALL_TIMEOUT_MS", DEFAULT_CALL_TIMEOUT_MS, 1, 600_000),
    allowedHosts: list(env.LSPMESH_ALLOWED_HOSTS),
    allowedOrigins: list(env.LSPMESH_ALLOWED_ORIGINS),
    logLevel,
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() ? value.trim() : undefined;
}

function integer(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  const text = nonEmpty(raw);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`invalid ${name} '${text}': give a whole number from ${min} to ${max}`);
  }
  return value;
}

function list(raw: string | undefined): string[] | undefined {
  const items = (raw ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items.length > 0 ? items : undefined;
}
