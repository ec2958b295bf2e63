export type * from "./engine/answers.js";
export { QueryEngine } from "./engine/queryEngine.js";
export { RunnerError, type RunnerErrorCode } from "./errors.js";
export { builtinLanguages, defaultLanguages, typescriptLanguage } from "./lsp/builtinLanguages.js";
export { LanguageConfigError, loadLanguageRegistry, loadLanguages } from "./lsp/languageConfig.js";
export { type LanguageDefinition, LanguageRegistry, type LanguageServerConfig } from "./lsp/languageRegistry.js";
export { SessionManager } from "./lsp/sessionManager.js";
export { type RunnerServer, type RunnerServerOptions, startRunnerServer } from "./runnerServer.js";
export { SingleWorkspaceLocator, VolumeWorkspaceLocator, type WorkspaceLocator } from "./workspace/workspaceLocator.js";
