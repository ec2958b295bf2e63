// Pull diagnostics (`textDocument/diagnostic`, LSP 3.17, or a server's own check command) for one
// open document: the answer belongs to the content the server had when it received the request,
// which is the document's current version because requests are sent after the syncs before them.
import {
  type DocumentDiagnosticParams,
  DocumentDiagnosticRequest,
  LSPErrorCodes,
  ResponseError,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../../errors.js";
import type { OpenDocument } from "../documents/openDocument.js";
import type { StoredDiagnostics } from "./diagnosticsStore.js";
import type { LanguageSession } from "./languageSession.js";
import { tsserverDiagnostics } from "./tsserverDiagnostics.js";

/** Pause before asking again when the server cancelled a pull to retrigger it (ms, default 100). */
const RETRIGGER_DELAY_MS = 100;

/**
 * Whether a document's complete diagnostics can be asked for now: with `textDocument/diagnostic`
 * (offered by the server, or known to be answered: LanguageServerConfig.diagnosticsPull), or with
 * the server's own check command. Otherwise they can only be waited for as the server pushes them.
 */
export function canPullDiagnostics(session: LanguageSession): boolean {
  return session.pullsDiagnostics || session.language.diagnosticsPull !== undefined;
}

/** Pulls, records and returns the document's diagnostics; throws when the server fails or signal aborts. */
export async function pullDiagnostics(
  session: LanguageSession,
  document: OpenDocument,
  signal?: AbortSignal,
): Promise<StoredDiagnostics> {
  if (!session.pullsDiagnostics && session.language.diagnosticsPull === "tsserverRequest") {
    return tsserverDiagnostics(session, document, signal);
  }
  const { uri, version, hash } = document;
  for (;;) {
    const previous = session.diagnostics.pulledOf(uri);
    const params: DocumentDiagnosticParams = {
      textDocument: { uri },
      identifier: session.registrations.optionsOf<{ identifier?: string }>(DocumentDiagnosticRequest.method)
        ?.identifier,
      previousResultId: previous?.resultId,
    };
    try {
      const report = await session.request(DocumentDiagnosticRequest.type, params, signal);
      const items = report.kind === "unchanged" ? (previous?.diagnostics ?? []) : report.items;
      return session.diagnostics.record(uri, items, version, hash, { resultId: report.resultId, pulled: true });
    } catch (error) {
      // "Server cancelled, ask again" (e.g. a newer change arrived): retry until the caller's signal ends it.
      if (!isRetrigger(error) || signal?.aborted) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRIGGER_DELAY_MS));
    }
  }
}

function isRetrigger(error: unknown): boolean {
  const cause = error instanceof RunnerError ? error.cause : error;
  if (!(cause instanceof ResponseError) || cause.code !== LSPErrorCodes.ServerCancelled) return false;
  return (cause.data as { retriggerRequest?: boolean } | undefined)?.retriggerRequest !== false;
}
