// Diagnostics of one open document asked of tsserver directly, through typescript-language-server's
// `typescript.tsserverRequest` command. Its pushed diagnostics cannot be trusted as complete: the
// syntactic, semantic and suggestion results of a file arrive separately (the semantic ones
// seconds later while a cold project builds its program), nothing says when a file's check is
// done, and a clean file that stays clean is not published at all. The three checks asked here are
// the ones its pushes come from, answered when done, and converted exactly as it converts them.
import { type Diagnostic, DiagnosticSeverity, ExecuteCommandRequest } from "vscode-languageserver-protocol";
import type { OpenDocument } from "../documents/openDocument.js";
import type { DiagnosticsStore, StoredDiagnostics } from "./diagnosticsStore.js";

/** What the checks need of a LanguageSession (named structurally: the session imports this file). */
export interface TsserverSession {
  request<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R>;
  readonly diagnostics: DiagnosticsStore;
}

export const TSSERVER_REQUEST_COMMAND = "typescript.tsserverRequest";

/** In the order typescript-language-server's pushes list them (its geterr event order). */
const CHECKS = ["syntacticDiagnosticsSync", "semanticDiagnosticsSync", "suggestionDiagnosticsSync"] as const;

/** tsserver's protocol.Diagnostic (1-based line, 1-based UTF-16 offset). */
interface TsserverDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category: string;
  source?: string;
}

const SEVERITY: Record<string, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  suggestion: DiagnosticSeverity.Hint,
};

/** Runs the three checks, records the result for the document's current version, and returns it. */
export async function tsserverDiagnostics(
  session: TsserverSession,
  document: OpenDocument,
  signal?: AbortSignal,
): Promise<StoredDiagnostics> {
  const { uri, version, hash } = document;
  const items: Diagnostic[] = [];
  for (const check of CHECKS) {
    // The wrapper maps `file` (a document URI) to tsserver's path and answers the raw response.
    const response = await session.request<{ body?: TsserverDiagnostic[] } | null>(
      ExecuteCommandRequest.method,
      { command: TSSERVER_REQUEST_COMMAND, arguments: [check, { file: uri }] },
      signal,
    );
    for (const diagnostic of response?.body ?? []) items.push(toLspDiagnostic(diagnostic));
  }
  return session.diagnostics.record(uri, items, version, hash, { pulled: true });
}

/** typescript-language-server's own conversion (toDiagnostic), minus what answers do not carry. */
export function toLspDiagnostic(diagnostic: TsserverDiagnostic): Diagnostic {
  const position = ({ line, offset }: { line: number; offset: number }) => ({
    line: Math.max(line - 1, 0),
    character: Math.max(offset - 1, 0),
  });
  return {
    range: { start: position(diagnostic.start), end: position(diagnostic.end) },
    message: diagnostic.text,
    severity: SEVERITY[diagnostic.category] ?? DiagnosticSeverity.Error,
    ...(diagnostic.code === undefined ? {} : { code: diagnostic.code }),
    source: diagnostic.source || "typescript",
  };
}
