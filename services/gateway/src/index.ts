// Public API of @lspmesh/gateway.
export { ApiKeyStore, sha256Hex } from "./auth/apiKeys.js";
export {
  type Authenticator,
  BearerAuthenticator,
  NoTokenAuthenticator,
} from "./auth/authenticator.js";
export { JwtVerifier } from "./auth/jwtVerifier.js";
export { type Principal, SCOPES, type Scope } from "./auth/principal.js";
export { ERROR_CODES, type ErrorCode, GatewayError } from "./errors.js";
export {
  DEFAULT_CALL_TIMEOUT_MS,
  type GatewayOptions,
  type RunningGateway,
  requiredScope,
  startGateway,
} from "./gateway.js";
export { ERROR_CODE_TRAILER, toolErrorFromGrpc } from "./grpcErrors.js";
export { DEFAULT_LIMITS, TenantLimiter, type TenantLimits } from "./limits/tenantLimiter.js";
export { createJsonLogger, type LogFields, type Logger, type LogLevel, silentLogger } from "./logger.js";
export { createGatewayMcpServer, GATEWAY_TOOLS, SERVER_INFO } from "./mcp/createMcpServer.js";
export type { GatewayTool } from "./mcp/defineTool.js";
export { ERROR_META_KEY, REQUEST_ID_METADATA, type ToolDeps } from "./mcp/toolCall.js";
export { GatewayMetrics } from "./ops/metrics.js";
export { hrwWeight, type RouteKey, rankByHrw } from "./routing/hrw.js";
export { languageOfFile } from "./routing/languages.js";
export { openNatsRunnerRegistry } from "./routing/natsRegistry.js";
export {
  RegistryRunnerDirectory,
  type RunnerDirectory,
  type RunnerEntry,
  StaticRunnerDirectory,
} from "./routing/runnerDirectory.js";
export { HrwRunnerRouter, type RunnerClient, type RunnerHandle, type RunnerRouter } from "./routing/runnerRouter.js";
export { StaticRunnerRouter } from "./routing/staticRouter.js";
export { parseTenantsFile, readTenantsFile, type TenantsFile, TenantWorkspaceResolver } from "./tenancy/tenants.js";
export {
  type Caller,
  ID_PATTERN,
  StaticWorkspaceResolver,
  type WorkspaceResolver,
  type WorkspaceTarget,
} from "./workspaces.js";
