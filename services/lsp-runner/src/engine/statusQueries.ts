// Per-language server state of one workspace (workspace_status).
import type { LanguageStatus, WorkspaceRef } from "./answers.js";
import type { EngineContext } from "./engineContext.js";

export class StatusQueries {
  constructor(private readonly engine: EngineContext) {}

  async workspaceStatus(ref: WorkspaceRef): Promise<LanguageStatus[]> {
    await this.engine.workspacePaths(ref);
    const sessions = await this.engine.options.sessions.sessionsOf(ref.tenant, ref.workspace);
    return sessions.map((session) => ({
      language: session.language.id,
      state: session.state,
      server: session.serverName,
      progress: session.progress.summary(),
      lastError: session.lastError,
      openDocuments: session.openDocumentCount,
    }));
  }
}
