// Public API of @lspmesh/gateway.
export { ERROR_CODES, type ErrorCode, GatewayError } from "./errors.js";
export { DEFAULT_CALL_TIMEOUT_MS, type GatewayOptions, type RunningGateway, startGateway } from "./gateway.js";
export { ERROR_CODE_TRAILER, toolErrorFromGrpc } from "./grpcErrors.js";
export { createJsonLogger, type LogFields, type Logger, type LogLevel, silentLogger } from "./logger.js";
export { createGatewayMcpServer, GATEWAY_TOOLS } from "./mcp/createMcpServer.js";
export type { GatewayTool } from "./mcp/defineTool.js";
export { ERROR_META_KEY, REQUEST_ID_METADATA, type ToolDeps } from "./mcp/toolCall.js";
export { type RunnerClient, type RunnerRouter, StaticRunnerRouter } from "./runnerRouting.js";
export {
  type Caller,
  ID_PATTERN,
  StaticWorkspaceResolver,
  type WorkspaceResolver,
  type WorkspaceTarget,
} from "./workspaces.js";
