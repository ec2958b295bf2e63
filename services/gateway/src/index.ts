// Public API of @lspmesh/gateway.

export { hrwWeight, type RouteKey, rankByHrw } from "@lspmesh/events";
export { createJsonLogger, type LogFields, type Logger, type LogLevel, silentLogger } from "@lspmesh/service-kit";
export { AdminService } from "./admin/adminService.js";
export {
  AdminError,
  applyFile,
  type ControlChange,
  type ControlValues,
  describeChange,
  keyAdd,
  keyRemove,
  tenantPut,
  tenantRemove,
  workspacePut,
  workspaceRemove,
} from "./admin/controlPlaneChanges.js";
export { ControlPlaneStore } from "./admin/controlPlaneStore.js";
export { type ExpiredWorkspace, expiredWorkspaces, expiryChanges } from "./admin/workspaceExpiry.js";
export { ApiKeyStore, sha256Hex } from "./auth/apiKeys.js";
export {
  type Authenticator,
  BearerAuthenticator,
  NoTokenAuthenticator,
} from "./auth/authenticator.js";
export { JwtVerifier } from "./auth/jwtVerifier.js";
export { ADMIN_SCOPE, type Principal, SCOPES, type Scope, TOOL_SCOPES } from "./auth/principal.js";
export { GATEWAY_USAGE, type GatewayConfig, gatewayConfig } from "./config.js";
export { ERROR_CODES, type ErrorCode, GatewayError } from "./errors.js";
export {
  type GatewayOptions,
  type RunningGateway,
  requiredScope,
  startGateway,
} from "./gateway.js";
export { toolErrorFromGrpc } from "./grpcErrors.js";
export { DEFAULT_LIMITS, TenantLimiter, type TenantLimits } from "./limits/tenantLimiter.js";
export { type LocalGatewayOptions, type LocalStdioGateway, serveLocalStdio, startLocalGateway } from "./local.js";
export { main } from "./main.js";
export { createGatewayMcpServer, GATEWAY_TOOLS, SERVER_INFO } from "./mcp/createMcpServer.js";
export type { GatewayTool } from "./mcp/defineTool.js";
export type { ToolDeps } from "./mcp/toolCall.js";
export { ERROR_META_KEY } from "./mcp/toolErrors.js";
export { GatewayMetrics } from "./ops/metrics.js";
export { openNatsRunnerRegistry } from "./routing/natsRegistry.js";
export {
  RegistryRunnerDirectory,
  type RunnerDirectory,
  type RunnerEntry,
  StaticRunnerDirectory,
} from "./routing/runnerDirectory.js";
export {
  extensionOf,
  HrwRunnerRouter,
  type RunnerClient,
  type RunnerHandle,
  type RunnerRouter,
} from "./routing/runnerRouter.js";
export { StaticRunnerRouter } from "./routing/staticRouter.js";
export {
  DEFAULT_SYMBOL_INDEX_MAX_BYTES,
  DEFAULT_SYMBOL_INDEX_MAX_TENANTS,
  SymbolIndexCache,
} from "./symbols/symbolIndexCache.js";
export { ControlPlaneTenancy } from "./tenancy/controlPlaneTenancy.js";
export { parseTenantsFile, readTenantsFile, type TenantsFile, TenantWorkspaceResolver } from "./tenancy/tenants.js";
export {
  type Caller,
  StaticWorkspaceResolver,
  type WorkspaceResolver,
  type WorkspaceTarget,
} from "./workspaces.js";
