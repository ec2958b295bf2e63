// What the integration tests of this package reach inside the runner: its internals, kept out of the
// public face (src/index.ts).
export type * from "../src/engine/answers.js";
export { QueryEngine } from "../src/engine/queryEngine.js";
export { RunnerError, type RunnerErrorCode } from "../src/errors.js";
export type { Closeable, RunnerEventBus } from "../src/events/eventBus.js";
export { InProcessEventBus } from "../src/events/inProcessEventBus.js";
export { NatsEventBus, type NatsEventBusOptions } from "../src/events/natsEventBus.js";
export { builtinLanguages, defaultLanguages, typescriptLanguage } from "../src/lsp/builtinLanguages.js";
export { LanguageConfigError, loadLanguageRegistry, loadLanguages } from "../src/lsp/languageConfig.js";
export { type LanguageDefinition, LanguageRegistry, type LanguageServerConfig } from "../src/lsp/languageRegistry.js";
export { LIVENESS_PROBE_METHOD } from "../src/lsp/languageSession.js";
export { type LifecycleEvent, SessionManager, type SessionManagerOptions } from "../src/lsp/sessionManager.js";
export { DEFAULT_SESSION_POLICY, type SessionPolicy, type SessionPolicyOverrides } from "../src/lsp/sessionPolicy.js";
export { type RunnerServer, type RunnerServerOptions, startRunnerServer } from "../src/runnerServer.js";
export { parseWarmUpList, type WarmUpEntry } from "../src/sessionWarmUp.js";
export { listSourceFiles } from "../src/workspace/sourceFiles.js";
export {
  SingleWorkspaceLocator,
  VolumeWorkspaceLocator,
  type WorkspaceLocator,
} from "../src/workspace/workspaceLocator.js";
