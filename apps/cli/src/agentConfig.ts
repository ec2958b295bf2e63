// Ready-to-paste MCP client configurations for the common agents, with absolute paths: agents
// start MCP servers without this repository as their working folder, so `npx lspmesh` would not
// be found (or would fetch someone else's package from the registry).
import { realpathSync } from "node:fs";

export interface StdioLaunch {
  /** Absolute path of the Node.js running this command. */
  command: string;
  /** The CLI script (absolute) and its arguments: `[cli, "mcp", dir]`. */
  args: string[];
}

/** How to start `lspmesh mcp DIR` again from anywhere: this Node and this script, absolute. */
export function stdioLaunch(dir: string, extra: string[] = []): StdioLaunch {
  const script = process.argv[1] ? realpathSync(process.argv[1]) : "lspmesh";
  return { command: process.execPath, args: [script, "mcp", dir, ...extra] };
}

const json = (value: unknown) => JSON.stringify(value);
const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/** Lines for agents that start lspmesh themselves (MCP over stdio). */
export function stdioConfigs(launch: StdioLaunch): string[] {
  const server = { command: launch.command, args: launch.args };
  return [
    `  Claude Code:     claude mcp add lspmesh -- ${[launch.command, ...launch.args].map(shellWord).join(" ")}`,
    `  Claude Desktop, Cursor (mcp.json): ${json({ mcpServers: { lspmesh: server } })}`,
    `  VS Code (.vscode/mcp.json): ${json({ servers: { lspmesh: { type: "stdio", ...server } } })}`,
    `  Codex CLI (~/.codex/config.toml): [mcp_servers.lspmesh] command = ${json(launch.command)}, args = ${json(launch.args)}`,
  ];
}

/** Lines for agents that connect to a running `lspmesh serve` (Streamable HTTP, no token on loopback). */
export function httpConfigs(url: string, launch: StdioLaunch): string[] {
  return [
    `  Claude Code:     claude mcp add --transport http lspmesh ${url}`,
    `  Cursor (mcp.json): ${json({ mcpServers: { lspmesh: { url } } })}`,
    `  VS Code (.vscode/mcp.json): ${json({ servers: { lspmesh: { type: "http", url } } })}`,
    `  Codex CLI (~/.codex/config.toml): [mcp_servers.lspmesh] url = ${json(url)}`,
    `  Claude Desktop (starts its own, over stdio): ${json({ mcpServers: { lspmesh: { command: launch.command, args: launch.args } } })}`,
  ];
}
