// Per-language server state of one workspace (workspace_status).
import type { LanguageStatus, WorkspaceRef } from "./answers.js";
import type { EngineContext } from "./engineContext.js";

export class StatusQueries {
  constructor(private readonly engine: EngineContext) {}

  async workspaceStatus(ref: WorkspaceRef): Promise<LanguageStatus[]> {
    await this.engine.workspacePaths(ref);
    return this.engine.options.sessions.statusOf(ref.tenant, ref.workspace);
  }
}
