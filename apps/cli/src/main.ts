// Entry of the `lspmesh` command: picks the subcommand; each command module is its own
// composition root.

import { SettingsError } from "@lspmesh/service-kit";
import { runCheckCommand } from "./commands/check.js";
import { runDiagnosticsCommand } from "./commands/diagnostics.js";
import { runGatewayCommand } from "./commands/gateway.js";
import { runMcpCommand } from "./commands/mcp.js";
import { runRunnerCommand } from "./commands/runner.js";
import { runServeCommand } from "./commands/serve.js";
import { ConfigFileError } from "./usage.js";

const USAGE = `usage: lspmesh <command> [options]

commands:
  serve [dir]   serve a folder over MCP on one machine (gateway + runner in one process)
                  --port N (default 7420)  --host H (default 127.0.0.1)  --workspace ID (default "default")
                  --languages FILE (JSON overriding or adding language servers; see docs/languages.md)
  gateway       run the MCP gateway (flags and LSPMESH_* environment; see docs/gateway.md)
  runner        run a language-server runner (LSPMESH_* environment; see docs/operations.md)
  check         diagnostics for CI: changed files or the workspace, new vs a base, with an exit code
                  (text, json, sarif, github, codequality, summary-md; see docs/ci.md)
  diagnostics   a workspace's diagnostics from NATS, as they change (--watch)
  mcp [dir]     MCP over stdio for desktop agents: embedded (serves dir), or --gateway URL (proxy)

Run \`lspmesh <command> --help\` for a command's options.`;

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = {
  serve: runServeCommand,
  gateway: runGatewayCommand,
  runner: runRunnerCommand,
  check: runCheckCommand,
  diagnostics: runDiagnosticsCommand,
  mcp: runMcpCommand,
};

const [command, ...args] = process.argv.slice(2);
if (!command || command === "--help" || command === "-h" || command === "help") {
  console.log(USAGE);
  process.exit(command ? 0 : 2);
}
const run = COMMANDS[command];
if (!run) {
  console.error(`lspmesh: unknown command '${command}'\n\n${USAGE}`);
  process.exit(2);
}
try {
  await run(args);
} catch (error) {
  // Bad flags or settings (UsageError is one): one line, exit 2, never a stack trace.
  if (error instanceof SettingsError) {
    const hint = error instanceof ConfigFileError ? "" : `\nRun \`lspmesh ${command} --help\` for its options.`;
    console.error(`lspmesh ${command}: ${error.message}${hint}`);
    process.exit(2);
  }
  throw error;
}
