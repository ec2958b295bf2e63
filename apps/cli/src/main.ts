// Entry of the `lspmesh` command: picks the subcommand; each command module is its own
// composition root.

import { GATEWAY_USAGE } from "@lspmesh/gateway";
import { RUNNER_USAGE } from "@lspmesh/lsp-runner";
import { SettingsError } from "@lspmesh/service-kit";
import { HELP as CHECK_HELP, runCheckCommand } from "./commands/check.js";
import { HELP as DIAGNOSTICS_HELP, runDiagnosticsCommand } from "./commands/diagnostics.js";
import { runGatewayCommand } from "./commands/gateway.js";
import { HELP as MCP_HELP, runMcpCommand } from "./commands/mcp.js";
import { HELP as NATS_AUTH_HELP, runNatsAuthCommand } from "./commands/natsAuth.js";
import { runRunnerCommand } from "./commands/runner.js";
import { runServeCommand, HELP as SERVE_HELP } from "./commands/serve.js";
import { runVersionCommand, HELP as VERSION_HELP } from "./commands/version.js";
import { ConfigFileError, usageHint } from "./usage.js";

const USAGE = `usage: lspmesh <command> [options]

commands:
  serve [dir]   serve a folder over MCP on one machine (gateway + runner in one process)
                  --port N (default 7420)  --host H (default 127.0.0.1)  --workspace ID (default "default")
                  --languages FILE (JSON overriding or adding language servers; see docs/languages.md)
                  --read-only (no tool writes files)  --allow-origin ORIGIN (browser pages allowed to call)
  gateway       run the MCP gateway (flags and LSPMESH_* environment; see docs/gateway.md)
  runner        run a language-server runner (LSPMESH_* environment; see docs/operations.md)
  check         diagnostics for CI: changed files or the workspace, new vs a base, with an exit code
                  (text, json, sarif, github, codequality, summary-md; see docs/ci.md)
  diagnostics   a workspace's diagnostics from NATS, as they change (--watch)
  mcp DIR       MCP over stdio for desktop agents: embedded (serves DIR), or --gateway URL (proxy)
  nats-auth     the nats-server authorization for a deployment's runners and tenants
  --version     lspmesh's version and the language servers it finds

Run \`lspmesh <command> --help\` for a command's options.`;

interface Command {
  run(args: string[]): Promise<void>;
  help: string;
}

const COMMANDS: Record<string, Command> = {
  serve: { run: runServeCommand, help: SERVE_HELP },
  gateway: { run: runGatewayCommand, help: GATEWAY_USAGE },
  runner: { run: runRunnerCommand, help: RUNNER_USAGE },
  check: { run: runCheckCommand, help: CHECK_HELP },
  diagnostics: { run: runDiagnosticsCommand, help: DIAGNOSTICS_HELP },
  mcp: { run: runMcpCommand, help: MCP_HELP },
  "nats-auth": { run: runNatsAuthCommand, help: NATS_AUTH_HELP },
  version: { run: runVersionCommand, help: VERSION_HELP },
};
const ALIASES: Record<string, string> = { "--version": "version", "-V": "version" };

const [given, ...args] = process.argv.slice(2);
if (!given || given === "--help" || given === "-h" || given === "help") {
  console.log(USAGE);
  process.exit(given ? 0 : 2);
}
const name = ALIASES[given] ?? given;
const command = COMMANDS[name];
if (!command) {
  console.error(`lspmesh: unknown command '${given}'\n\n${USAGE}`);
  process.exit(2);
}
try {
  await command.run(args);
} catch (error) {
  // Bad flags or settings (UsageError is one): the mistake, the usage line, exit 2, never a stack trace.
  if (error instanceof SettingsError) {
    const hint = error instanceof ConfigFileError ? "" : `\n${usageHint(name, command.help)}`;
    console.error(`lspmesh ${name}: ${error.message}${hint}`);
    process.exit(2);
  }
  throw error;
}
