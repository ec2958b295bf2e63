export type * from "./engine/answers.js";
export { QueryEngine } from "./engine/queryEngine.js";
export { RunnerError, type RunnerErrorCode } from "./errors.js";
export { LanguageRegistry, type LanguageServerConfig, typescriptLanguage } from "./lsp/languageRegistry.js";
export { SessionManager } from "./lsp/sessionManager.js";
export { type RunnerServer, type RunnerServerOptions, startRunnerServer } from "./runnerServer.js";
export { listSourceFiles } from "./workspace/sourceFiles.js";
export { SingleWorkspaceLocator, VolumeWorkspaceLocator, type WorkspaceLocator } from "./workspace/workspaceLocator.js";
