// Closed files that changed on disk, told to tsserver itself: its `reload` command re-reads a file
// it knows and marks the file's projects dirty, so the next request (sent after it, answered in
// order) sees the new content. typescript-language-server ignores didChangeWatchedFiles (tsserver
// watches files itself), and a question sent right after a write can overtake tsserver's own
// watcher (10–80 ms on an idle machine, longer with the cores saturated): an answer from before
// the write, then remembered.
import { ExecuteCommandRequest } from "vscode-languageserver-protocol";
import { TSSERVER_REQUEST_COMMAND } from "./tsserverDiagnostics.js";

/** Files reloaded per batch of changes at most (a branch switch changes thousands); past it tsserver's watcher is waited for. */
export const TSSERVER_RELOAD_LIMIT = 64;

/** What a reload needs of a LanguageSession (named structurally: the session module stays small). */
export interface ReloadingSession {
  readonly language: { readonly diagnosticsPull?: string | undefined };
  readonly state: string;
  readonly isAlive: boolean;
  request<R>(method: string, params: unknown): Promise<R>;
}

/**
 * Has the session's server re-read each closed file in `paths` (absolute) before its next request.
 * True when it was told of every one; false when it cannot be (not tsserver, not started, failed,
 * too many files, a request failed), and its own watcher is what tells it. A file tsserver does
 * not know is ignored by tsserver (it learns of it when a project loads it), and so is a folder.
 */
export async function reloadClosedFiles(session: ReloadingSession, paths: readonly string[]): Promise<boolean> {
  if (paths.length === 0) return true;
  const speaksTsserver = session.language.diagnosticsPull === "tsserverRequest";
  const started = session.state !== "starting" && session.state !== "failed" && session.isAlive;
  if (!speaksTsserver || !started || paths.length > TSSERVER_RELOAD_LIMIT) return false;
  try {
    for (const file of paths) {
      // Named by path: the wrapper maps only open documents' URIs, and these are closed.
      await session.request(ExecuteCommandRequest.method, {
        command: TSSERVER_REQUEST_COMMAND,
        arguments: ["reload", { file }],
      });
    }
    return true;
  } catch {
    return false;
  }
}
