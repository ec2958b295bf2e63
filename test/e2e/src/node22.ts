// A Node >= 22 binary for tools that need it (the MCP conformance suite uses fs.globSync). It
// comes from the npm package `node`, installed into test/e2e/node22 on first use: that folder is
// outside the npm workspaces so its `node` bin does not shadow the project's Node 20 in scripts.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const DIR = fileURLToPath(new URL("../node22/", import.meta.url));
const BINARY = `${DIR}node_modules/node/bin/node`;

/** Path of the Node 22 binary; installs it (npm ci, about 30 MB) when missing. */
export function node22(): string {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  if (!existsSync(BINARY)) {
    execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", DIR], { stdio: "inherit", timeout: 300_000 });
  }
  return BINARY;
}
