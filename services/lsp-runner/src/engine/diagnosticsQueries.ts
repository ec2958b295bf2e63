// Diagnostics for files or the whole workspace, never older than the files' current content
// unless the answer says so.
import { extname } from "node:path";
import type { Diagnostic as LspDiagnostic } from "vscode-languageserver-protocol";
import type { LanguageSession } from "../lsp/languageSession.js";
import { fromLspRange } from "../lsp/positionEncoding.js";
import { listSourceFiles } from "../workspace/sourceFiles.js";
import type { Diagnostic, DiagnosticsAnswer, FileDiagnostics, WorkspaceRef } from "./answers.js";
import type { EngineContext } from "./engineContext.js";

/** Files opened for a whole-workspace diagnostics request, at most (default 200). */
const WORKSPACE_DIAGNOSTICS_FILE_LIMIT = 200;

export class DiagnosticsQueries {
  constructor(private readonly engine: EngineContext) {}

  async diagnostics(
    ref: WorkspaceRef,
    files: string[],
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<DiagnosticsAnswer> {
    const paths = await this.engine.workspacePaths(ref);
    let targets = files;
    let listingNote = "";
    if (targets.length === 0) {
      const listed = await listSourceFiles(
        paths.root,
        new Set(this.engine.options.languages.extensions()),
        WORKSPACE_DIAGNOSTICS_FILE_LIMIT,
      );
      // Files of languages whose server is not installed here are skipped, and said to be.
      const languages = this.engine.options.languages;
      const served = new Set(languages.installed().flatMap((language) => Object.keys(language.extensions)));
      targets = listed.files.filter((file) => served.has(extname(file).toLowerCase()));
      const unserved = listed.files.filter((file) => !served.has(extname(file).toLowerCase()));
      if (listed.truncated) {
        listingNote = `only the first ${WORKSPACE_DIAGNOSTICS_FILE_LIMIT} source files were checked; name files to check others`;
      }
      if (unserved.length > 0) {
        const kinds = [...new Set(unserved.map((file) => extname(file).toLowerCase()))].join(", ");
        const skipped = `${unserved.length} ${kinds} file(s) not checked: no language server for them is installed on this runner`;
        listingNote = [listingNote, skipped].filter(Boolean).join("; ");
      }
    }
    const contexts = await Promise.all(targets.map((file) => this.engine.openDocument(ref, file, paths)));
    const deadline = Date.now() + waitMs;
    const results = await Promise.all(
      contexts.map(async (context): Promise<FileDiagnostics> => {
        const { session, document } = context;
        const stored = await session.diagnostics.waitForNewer(
          document.uri,
          document.syncedAt,
          Math.max(0, deadline - Date.now()),
          session.diagnosticsSettleMs(),
          signal,
        );
        const latest = stored ?? session.diagnostics.get(document.uri);
        return {
          file: context.file.path,
          version: document.version,
          contentSha256: document.hash,
          fresh: stored !== undefined,
          diagnostics: (latest?.diagnostics ?? []).map((d) => convertDiagnostic(d, document.lines, session)),
        };
      }),
    );
    const sessions = [...new Set(contexts.map((c) => c.session))];
    const stale = results.filter((r) => !r.fresh).map((r) => r.file);
    const status = this.engine.combinedStatus(sessions);
    if (stale.length > 0) {
      status.partial = true;
      status.note = [
        `no diagnostics newer than the current content of ${stale.join(", ")} arrived within ${waitMs} ms (the server may still be checking, or publishes nothing when a clean file stays clean); raise wait_ms`,
        status.note,
      ]
        .filter(Boolean)
        .join("; ");
    }
    if (listingNote) {
      status.partial = true;
      status.note = [listingNote, status.note].filter(Boolean).join("; ");
    }
    return { status, files: results, epoch: sessions.reduce((max, s) => Math.max(max, s.startedAt), 0) };
  }
}

function convertDiagnostic(diagnostic: LspDiagnostic, lines: readonly string[], session: LanguageSession): Diagnostic {
  return {
    range: fromLspRange(lines, diagnostic.range, session.encoding),
    severity: diagnostic.severity ?? 1,
    code: diagnostic.code === undefined ? "" : String(diagnostic.code),
    source: diagnostic.source ?? "",
    message: diagnostic.message,
  };
}
