// What the integration tests of this package reach inside the runner: its internals, kept out of the
// public face (src/index.ts).
export type * from "../src/engine/answers.js";
export { QueryEngine } from "../src/engine/queryEngine.js";
export { RunnerError, type RunnerErrorCode } from "../src/errors.js";
export type { Closeable, RunnerEventBus } from "../src/events/eventBus.js";
export { InProcessEventBus } from "../src/events/inProcessEventBus.js";
export { NatsEventBus, type NatsEventBusOptions } from "../src/events/natsEventBus.js";
export {
  builtinLanguages,
  cppLanguage,
  defaultLanguages,
  goLanguage,
  pythonLanguage,
  typescriptLanguage,
  typescriptNativeLanguage,
} from "../src/lsp/languages/builtinLanguages.js";
export { LanguageConfigError, loadLanguageRegistry, loadLanguages } from "../src/lsp/languages/languageConfig.js";
export {
  type LanguageDefinition,
  LanguageRegistry,
  type LanguageServerConfig,
} from "../src/lsp/languages/languageRegistry.js";
export { type LifecycleEvent, SessionManager, type SessionManagerOptions } from "../src/lsp/pool/sessionManager.js";
export {
  DEFAULT_SESSION_POLICY,
  type SessionPolicy,
  type SessionPolicyOverrides,
} from "../src/lsp/pool/sessionPolicy.js";
export { LIVENESS_PROBE_METHOD } from "../src/lsp/session/languageSession.js";
export { type RunnerServer, type RunnerServerOptions, startRunnerServer } from "../src/runnerServer.js";
export { parseWarmUpList, type WarmUpEntry } from "../src/sessionWarmUp.js";
export { listSourceFiles } from "../src/workspace/sourceFiles.js";
export {
  SingleWorkspaceLocator,
  VolumeWorkspaceLocator,
  type WorkspaceLocator,
} from "../src/workspace/workspaceLocator.js";
