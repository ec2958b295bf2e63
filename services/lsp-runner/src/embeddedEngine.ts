// Language servers run in the calling process on one local folder, answering through the runner's
// own query engine (the code behind the gateway's `diagnostics` tool), without gRPC. For
// `lspmesh check`, which diagnoses a checkout and exits.
import { DEFAULT_WORKSPACE, LOCAL_TENANT } from "@lspmesh/proto";
import type { DiagnosticsAnswer } from "./engine/answers.js";
import { QueryEngine } from "./engine/queryEngine.js";
import { runnerClientCapabilities } from "./features/index.js";
import { loadLanguageRegistry } from "./lsp/languages/languageConfig.js";
import { SessionManager } from "./lsp/pool/sessionManager.js";
import { SingleWorkspaceLocator } from "./workspace/workspaceLocator.js";

export interface EmbeddedEngineOptions {
  /** The folder served. */
  dir: string;
  /** Names the sessions (e.g. "head", "base"); default "default". */
  workspace?: string;
  /** JSON file overriding or adding language servers (docs/languages.md). */
  languagesFile?: string;
  /** Each line a language server writes to stderr, prefixed with its language. */
  log?: (line: string) => void;
}

export interface EmbeddedEngine {
  /** Whether a language server is configured for the file (by extension). */
  supports(file: string): boolean;
  /**
   * Diagnostics of workspace-relative `files` (every source file when empty), waiting up to
   * `waitMs` for ones computed from the files' current content. Throws RunnerError.
   */
  diagnostics(request: { files: string[]; waitMs: number; signal?: AbortSignal }): Promise<DiagnosticsAnswer>;
  /** Stops every language server it started. Idempotent. */
  close(): Promise<void>;
  /** close(), for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Throws LanguageConfigError for a bad languages file. */
export async function openEmbeddedEngine(options: EmbeddedEngineOptions): Promise<EmbeddedEngine> {
  const languages = await loadLanguageRegistry(options.languagesFile);
  const log = options.log;
  const sessions = new SessionManager({
    clientCapabilities: runnerClientCapabilities(),
    onLog: log ? (entry) => log(`${entry.language}: ${entry.line}`) : undefined,
  });
  const ref = { tenant: LOCAL_TENANT, workspace: options.workspace ?? DEFAULT_WORKSPACE };
  const engine = new QueryEngine({
    locator: new SingleWorkspaceLocator(options.dir, ref.tenant, ref.workspace),
    languages,
    sessions,
  });
  const close = () => sessions.close();
  return {
    supports: (file) => languages.forFile(file) !== undefined,
    diagnostics: ({ files, waitMs, signal }) => engine.diagnostics.diagnostics({ ref, files, waitMs, signal }),
    close,
    [Symbol.asyncDispose]: close,
  };
}
