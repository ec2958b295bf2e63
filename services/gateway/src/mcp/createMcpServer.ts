// The MCP server factory: one fresh McpServer per request (stateless serving), all tools on it.
import { McpServer } from "@modelcontextprotocol/server";
import type { GatewayTool, ToolHandler } from "./defineTool.js";
import type { ToolDeps } from "./toolCall.js";
import { applyWorkspaceEditTool } from "./tools/applyWorkspaceEdit.js";
import { batchTool } from "./tools/batch.js";
import { checkEditTool } from "./tools/checkEdit.js";
import { codeActionsTool } from "./tools/codeActions.js";
import { completionsTool } from "./tools/completions.js";
import { diagnosticsTool } from "./tools/diagnostics.js";
import { documentHighlightsTool } from "./tools/documentHighlights.js";
import { documentSymbolsTool } from "./tools/documentSymbols.js";
import { findDefinitionTool, findImplementationsTool, findTypeDefinitionTool } from "./tools/findDefinition.js";
import { findReferencesTool } from "./tools/findReferences.js";
import { findSymbolTool } from "./tools/findSymbol.js";
import { formatDocumentTool } from "./tools/formatDocument.js";
import { callHierarchyTool, typeHierarchyTool } from "./tools/hierarchy.js";
import { hoverTool } from "./tools/hover.js";
import { inlayHintsTool } from "./tools/inlayHints.js";
import { listFilesTool } from "./tools/listFiles.js";
import { readFileTool } from "./tools/readFile.js";
import { renameFileTool } from "./tools/renameFile.js";
import { renameSymbolTool } from "./tools/renameSymbol.js";
import { restartLanguageServerTool } from "./tools/restartLanguageServer.js";
import { searchSymbolsTool } from "./tools/searchSymbols.js";
import { searchTextTool } from "./tools/searchText.js";
import { signatureHelpTool } from "./tools/signatureHelp.js";
import { insertAfterSymbolTool, insertBeforeSymbolTool, replaceSymbolBodyTool } from "./tools/symbolEdits.js";
import { workspaceStatusTool } from "./tools/workspaceStatus.js";
import { workspaceSymbolsTool } from "./tools/workspaceSymbols.js";

export const SERVER_INFO = { name: "lspmesh", version: "0.1.0" } as const;

/** Every tool the gateway serves, in the order tools/list shows them (docs/tools.md). */
export const GATEWAY_TOOLS: readonly GatewayTool[] = [
  findDefinitionTool,
  findTypeDefinitionTool,
  findImplementationsTool,
  findReferencesTool,
  hoverTool,
  documentHighlightsTool,
  documentSymbolsTool,
  workspaceSymbolsTool,
  searchSymbolsTool,
  findSymbolTool,
  searchTextTool,
  readFileTool,
  listFilesTool,
  diagnosticsTool,
  checkEditTool,
  completionsTool,
  signatureHelpTool,
  codeActionsTool,
  formatDocumentTool,
  renameSymbolTool,
  renameFileTool,
  applyWorkspaceEditTool,
  replaceSymbolBodyTool,
  insertBeforeSymbolTool,
  insertAfterSymbolTool,
  callHierarchyTool,
  typeHierarchyTool,
  inlayHintsTool,
  batchTool(() => GATEWAY_TOOLS),
  workspaceStatusTool,
  restartLanguageServerTool,
];

/** Sent to clients at initialization; models read it before choosing tools. */
const INSTRUCTIONS = [
  "lspmesh answers questions about code with real language servers: definitions, references, hover, highlights in a file, outlines, symbol search (one workspace or all of yours; find_symbol by name, with bodies), diagnostics, completions, call and type hierarchies, and semantic edits (rename, format, code actions, symbol-level edits).",
  "search_text (ripgrep, ranked), read_file and list_files read the workspace's files. check_edit tells what a proposed edit would break or fix without writing it; edits that write answer the same delta.",
  "Files are workspace-relative paths such as src/index.ts. Positions are 1-based: the first line is 1 and columns count Unicode code points from 1.",
  "Instead of a column you may give symbol (the exact identifier) with line as an optional hint; the answer says where it resolved. find_definition, find_references and hover also take symbol alone (no file) when the name is unambiguous.",
  "Every answer carries the language server's state. When partial is true the server was not ready: an empty answer then means 'not known yet', not 'none', so retry shortly.",
  "Edits are previews unless you pass apply: true (or apply_title for code actions); writing needs the lsp:write scope.",
  "workspace_status without a workspace lists your workspaces. Use batch to ask up to 20 read questions at once.",
  "Arguments a tool does not list are refused (INVALID_ARGUMENT names them). Errors start with a stable code (for example NOT_FOUND, INVALID_ARGUMENT, NO_LANGUAGE_SERVER, RATE_LIMITED) followed by what to do about it.",
].join("\n");

/** Tools that can write files (code actions, format, rename, apply): every tool not annotated read-only. */
export function canWrite(tool: GatewayTool): boolean {
  return tool.annotations.readOnlyHint !== true;
}

/** The tools a server for `deps` offers (read-only deployments: the ones that cannot write). */
function servedTools(deps: ToolDeps): GatewayTool[] {
  return GATEWAY_TOOLS.filter((tool) => !deps.readOnly || !canWrite(tool));
}

export function createGatewayMcpServer(deps: ToolDeps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: deps.readOnly ? `${INSTRUCTIONS}\n${READ_ONLY_INSTRUCTION}` : INSTRUCTIONS,
  });
  for (const tool of servedTools(deps)) tool.register(server, deps);
  return server;
}

/** The handlers of the tools createGatewayMcpServer(deps) registers, by name (the same ones). */
export function gatewayToolHandlers(deps: ToolDeps): ReadonlyMap<string, ToolHandler> {
  return new Map(servedTools(deps).map((tool) => [tool.name, tool.handler(deps)]));
}

const READ_ONLY_INSTRUCTION =
  "This server is read-only: the edit tools (code_actions, format_document, rename_symbol, rename_file, apply_workspace_edit, replace_symbol_body, insert_before_symbol, insert_after_symbol) and restart_language_server are not offered; check_edit still checks edits without writing them.";
