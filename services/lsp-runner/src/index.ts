// The runner's public face: what applications (the lspmesh CLI), benchmarks and other packages may
// use. Everything else is internal; tests inside this package import src/ directly.
export {
  answerCacheSetting,
  DEFAULT_DRAIN_MS,
  RUNNER_USAGE,
  type RunnerConfig,
  runnerConfig,
  type WorkspacesSetting,
} from "./config.js";
export { landlockAbi } from "./confinement/landlock.js";
export { type EmbeddedEngine, type EmbeddedEngineOptions, openEmbeddedEngine } from "./embeddedEngine.js";
export type { Diagnostic, DiagnosticsAnswer, FileDiagnostics } from "./engine/answers.js";
export { RunnerError, type RunnerErrorCode } from "./errors.js";
export type { RunnerEventBus } from "./events/eventBus.js";
export { NatsEventBus, type NatsEventBusOptions } from "./events/natsEventBus.js";
export { LanguageConfigError } from "./lsp/languages/languageConfig.js";
export { type LanguageServerSummary, languageServers } from "./lsp/languages/languageServers.js";
export type { LifecycleEvent } from "./lsp/pool/sessionManager.js";
export { main } from "./main.js";
export type { ServerStateEvent } from "./runnerServer.js";
export { type RunnerHooks, type RunnerSettings, type RunningRunner, startRunner } from "./startRunner.js";
export { listSourceFiles } from "./workspace/sourceFiles.js";
