// The optional warm-up list: sessions started when the runner starts, before their first request,
// so the first caller does not wait for the server to start and load the project.
import type { LanguageRegistry, LanguageServerConfig } from "./lsp/languages/languageRegistry.js";
import type { SessionKey, SessionManager } from "./lsp/pool/sessionManager.js";
import type { WorkspaceLocator } from "./workspace/workspaceLocator.js";
import { WorkspacePaths } from "./workspace/workspacePaths.js";

export interface WarmUpEntry {
  tenant: string;
  workspace: string;
  /** Language id from the registry, e.g. "typescript". */
  language: string;
}

/** Parses `tenant/workspace/language[,…]` (LSPMESH_WARMUP). */
export function parseWarmUpList(text: string): WarmUpEntry[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const [tenant, workspace, language, ...rest] = item.split("/");
      if (!tenant || !workspace || !language || rest.length > 0) {
        throw new Error(`warm-up entry '${item}' is not tenant/workspace/language`);
      }
      return { tenant, workspace, language };
    });
}

export interface WarmUpContext {
  locator: WorkspaceLocator;
  languages: LanguageRegistry;
  sessions: SessionManager;
  log: (entry: Record<string, unknown>) => void;
}

/** Starts the listed sessions one after the other; an entry that cannot be started is logged and skipped. */
export async function warmUpSessions(entries: readonly WarmUpEntry[], context: WarmUpContext): Promise<void> {
  const resolved: Array<{ key: SessionKey; language: LanguageServerConfig }> = [];
  for (const entry of entries) {
    const language = context.languages.get(entry.language);
    if (!language) {
      context.log({ level: "warn", msg: "warm-up: unknown language", ...entry });
      continue;
    }
    try {
      const paths = await WorkspacePaths.open(await context.locator.locate(entry.tenant, entry.workspace));
      resolved.push({ key: { tenant: entry.tenant, workspace: entry.workspace, root: paths.root }, language });
    } catch (error) {
      context.log({ level: "warn", msg: "warm-up: workspace not found", ...entry, error: (error as Error).message });
    }
  }
  await context.sessions.warmUp(resolved);
}
