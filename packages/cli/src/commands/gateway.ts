// `lspmesh gateway`: the gateway service; flags become LSPMESH_* variables for its composition root.
import { parseArgs } from "node:util";
import { parsePort } from "../usage.js";

const HELP = `usage: lspmesh gateway [--runner HOST:PORT] [--host H] [--port N] [--tenant ID] [--workspace ID]

Flags override the environment: LSPMESH_RUNNER_ADDRESS, LSPMESH_HOST, LSPMESH_PORT,
LSPMESH_TENANT, LSPMESH_WORKSPACE (see docs/operations.md).`;

export async function runGatewayCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      runner: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      tenant: { type: "string" },
      workspace: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (values.runner) process.env.LSPMESH_RUNNER_ADDRESS = values.runner;
  if (values.host) process.env.LSPMESH_HOST = values.host;
  if (values.port) process.env.LSPMESH_PORT = String(parsePort(values.port, 7420));
  if (values.tenant) process.env.LSPMESH_TENANT = values.tenant;
  if (values.workspace) process.env.LSPMESH_WORKSPACE = values.workspace;
  await import("@lspmesh/gateway/main");
}
