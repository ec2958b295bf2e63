// The MCP server factory: one fresh McpServer per request (stateless serving), all tools on it.
import { McpServer } from "@modelcontextprotocol/server";
import type { GatewayTool } from "./defineTool.js";
import type { ToolDeps } from "./toolCall.js";
import { diagnosticsTool } from "./tools/diagnostics.js";
import { documentSymbolsTool } from "./tools/documentSymbols.js";
import { findDefinitionTool } from "./tools/findDefinition.js";
import { findReferencesTool } from "./tools/findReferences.js";
import { hoverTool } from "./tools/hover.js";
import { workspaceSymbolsTool } from "./tools/workspaceSymbols.js";

export const SERVER_INFO = { name: "lspmesh", version: "0.1.0" } as const;

/** Every tool the gateway serves, in the order tools/list shows them. */
export const GATEWAY_TOOLS: readonly GatewayTool[] = [
  findDefinitionTool,
  findReferencesTool,
  hoverTool,
  documentSymbolsTool,
  workspaceSymbolsTool,
  diagnosticsTool,
];

/** Sent to clients at initialization; models read it before choosing tools. */
const INSTRUCTIONS = [
  "lspmesh answers questions about code with real language servers: definitions, references, hover, file outlines, symbol search and diagnostics.",
  "Files are workspace-relative paths such as src/index.ts. Positions are 1-based: the first line is 1 and columns count Unicode code points from 1.",
  "Instead of a column you may give symbol (the exact identifier) with line as an optional hint; the answer says where it resolved.",
  "Every answer carries the language server's state. When partial is true the server was not ready: an empty answer then means 'not known yet', not 'none', so retry shortly.",
  "Errors start with a stable code (for example NOT_FOUND, SERVER_STARTING, INVALID_ARGUMENT) followed by what to do about it.",
].join("\n");

export function createGatewayMcpServer(deps: ToolDeps): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  for (const tool of GATEWAY_TOOLS) tool.register(server, deps);
  return server;
}
