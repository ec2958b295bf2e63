// `lspmesh --version`: this lspmesh, the Node running it, and each configured language server with
// its version, or where it was found, or how to install it. Starts no server.
import { createRequire } from "node:module";
import { LanguageConfigError, languageServers } from "@lspmesh/lsp-runner";
import { ConfigFileError, parseCommandFlags } from "../usage.js";

const require = createRequire(import.meta.url);
export const CLI_VERSION = (require("../../package.json") as { version: string }).version;

export const HELP = `usage: lspmesh --version [--languages FILE]

Prints lspmesh's version, the Node.js running it, and every enabled language server (built-in and
from the languages file): its name and version, or where it was found, or how to install it.`;

export async function runVersionCommand(args: string[]): Promise<void> {
  const { values } = parseCommandFlags({
    args,
    options: { languages: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const servers = await languageServers(values.languages).catch((error: unknown) => {
    throw error instanceof LanguageConfigError ? new ConfigFileError(error.message) : error;
  });
  const width = Math.max(...servers.map((server) => server.id.length));
  const lines = servers.map((server) => {
    const state = server.executable
      ? server.server === server.executable || server.server.startsWith("/")
        ? server.executable
        : `${server.server}${server.executable.includes("node_modules") || server.executable === process.execPath ? "" : ` (${server.executable})`}`
      : `not installed${server.install ? `: ${server.install}` : ""}`;
    return `  ${server.id.padEnd(width)}  ${state}`;
  });
  console.log([`lspmesh ${CLI_VERSION} (Node.js ${process.version})`, "language servers:", ...lines].join("\n"));
}
