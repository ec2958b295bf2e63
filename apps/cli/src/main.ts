// Entry of the `lspmesh` command: picks the subcommand; each command module is its own
// composition root.

import { isSettingsError } from "@lspmesh/service-kit";
import { usageHint } from "./usage.js";

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
  admin         tenants, workspaces and API keys in the NATS control plane, applied live
                  (apply -f FILE, tenants|workspaces|keys add|remove|list; see docs/deploy.md)
  nats-auth     the nats-server authorization for a deployment's runners and tenants
  grpc-secrets  each runner's own gRPC secret, derived from the gateways' key
  --version     lspmesh's version and the language servers it finds

Run \`lspmesh <command> --help\` for a command's options.`;

interface Command {
  run(args: string[]): Promise<void>;
  help: string;
}

// Loaded on use: a gateway process need not load the runner (and the TypeScript compiler its
// symbol index uses, about 75 MB resident), nor a runner the gateway. Each command is a bundle of
// its own (scripts/bundle.mjs --each), with its own copy of the modules it shares with this one:
// errors are recognised by isSettingsError, not instanceof.
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => {
    const { runServeCommand, HELP } = await import("./commands/serve.js");
    return { run: runServeCommand, help: HELP };
  },
  gateway: async () => {
    const { runGatewayCommand, HELP } = await import("./commands/gateway.js");
    return { run: runGatewayCommand, help: HELP };
  },
  runner: async () => {
    const { runRunnerCommand, HELP } = await import("./commands/runner.js");
    return { run: runRunnerCommand, help: HELP };
  },
  check: async () => {
    const { runCheckCommand, HELP } = await import("./commands/check.js");
    return { run: runCheckCommand, help: HELP };
  },
  diagnostics: async () => {
    const { runDiagnosticsCommand, HELP } = await import("./commands/diagnostics.js");
    return { run: runDiagnosticsCommand, help: HELP };
  },
  mcp: async () => {
    const { runMcpCommand, HELP } = await import("./commands/mcp.js");
    return { run: runMcpCommand, help: HELP };
  },
  "grpc-secrets": async () => {
    const { runGrpcSecretsCommand, HELP } = await import("./commands/grpcSecrets.js");
    return { run: runGrpcSecretsCommand, help: HELP };
  },
  admin: async () => {
    const { runAdminCommand, HELP } = await import("./commands/admin.js");
    return { run: runAdminCommand, help: HELP };
  },
  "nats-auth": async () => {
    const { runNatsAuthCommand, HELP } = await import("./commands/natsAuth.js");
    return { run: runNatsAuthCommand, help: HELP };
  },
  version: async () => {
    const { runVersionCommand, HELP } = await import("./commands/version.js");
    return { run: runVersionCommand, help: HELP };
  },
};
const ALIASES: Record<string, string> = { "--version": "version", "-V": "version" };

const [given, ...args] = process.argv.slice(2);
if (!given || given === "--help" || given === "-h" || given === "help") {
  console.log(USAGE);
  process.exit(given ? 0 : 2);
}
const name = ALIASES[given] ?? given;
const load = COMMANDS[name];
if (!load) {
  console.error(`lspmesh: unknown command '${given}'\n\n${USAGE}`);
  process.exit(2);
}
const command = await load();
try {
  await command.run(args);
} catch (error) {
  // Bad flags or settings (UsageError is one): the mistake, the usage line, exit 2, never a stack trace.
  if (isSettingsError(error)) {
    const hint = error.name === "ConfigFileError" ? "" : `\n${usageHint(name, command.help)}`;
    console.error(`lspmesh ${name}: ${error.message}${hint}`);
    process.exit(2);
  }
  throw error;
}
