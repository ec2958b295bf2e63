// gopls loads the package of a file opened outside those it has loaded (go-chi/chi's
// `_examples/hello-world/main.go`) after didOpen, reloading the workspace's packages meanwhile,
// and shows no progress for it: a workspace-wide question asked in that time is answered from a
// view without some packages' test variants (chi's NewRouter: 39 references instead of 103, and
// 103 a second later), as if complete. It publishes the opened file's diagnostics once it has
// loaded and checked it, so workspace-wide questions first wait for those of the documents opened
// or changed since their last diagnostics: a bounded time, once per document version.
import type { OpenDocument } from "../lsp/documents/openDocument.js";
import type { DiagnosticsStore } from "../lsp/session/diagnosticsStore.js";

/** Longest wait for opened documents' first diagnostics before a workspace-wide question, ms. */
export const OPENED_CHECK_WAIT_MS = 3_000;

/** What the wait needs of a session. */
export interface OpenedDocumentsHost {
  openDocuments(): OpenDocument[];
  readonly diagnostics: DiagnosticsStore;
}

/** Document versions already waited for (a document the server never reports on costs one wait). */
const waitedFor = new WeakMap<OpenDocument, number>();

/**
 * Resolves once every open document synced since its last diagnostics (not laid over by a check)
 * has new diagnostics, or after `timeoutMs`. True when none was left waiting.
 */
export async function openedDocumentsChecked(
  host: OpenedDocumentsHost,
  timeoutMs = OPENED_CHECK_WAIT_MS,
): Promise<boolean> {
  const pending = host
    .openDocuments()
    .filter(
      (document) =>
        !document.unsaved &&
        waitedFor.get(document) !== document.version &&
        (host.diagnostics.get(document.uri)?.sequence ?? 0) <= document.syncedAt,
    );
  if (pending.length === 0) return true;
  const deadline = Date.now() + timeoutMs;
  const checked = await Promise.all(
    pending.map(async (document) => {
      const version = document.version;
      const found = await host.diagnostics.waitForNewer(
        document.uri,
        document.syncedAt,
        Math.max(0, deadline - Date.now()),
        0,
      );
      waitedFor.set(document, version);
      return found !== undefined;
    }),
  );
  return checked.every(Boolean);
}
