// Diagnostics from language servers started in this process on a local checkout, through the
// runner's own query engine (the same code that answers the gateway's `diagnostics` tool).
import { realpathSync } from "node:fs";
import {
  type Diagnostic,
  LanguageRegistry,
  QueryEngine,
  RunnerError,
  SessionManager,
  SingleWorkspaceLocator,
} from "@lspmesh/lsp-runner";
import { severityFromLsp } from "./findings.js";
import { type DiagnosticsSource, type SourceAnswer, SourceError } from "./source.js";

/** Local tenant of embedded sessions (DESIGN.md 3.1 single-machine mode). */
const TENANT = "local";

export class EmbeddedSource implements DiagnosticsSource {
  readonly description = "embedded language servers";
  readonly maxWaitMs = Number.POSITIVE_INFINITY;
  private readonly languages = new LanguageRegistry();
  private readonly sessions: SessionManager;
  private readonly engine: QueryEngine;
  private readonly ref: { tenant: string; workspace: string };
  private readonly roots: string[];

  /** `workspace` only names the session (e.g. "head", "base"); `dir` is the checkout. */
  constructor(dir: string, workspace: string, log?: (line: string) => void) {
    this.ref = { tenant: TENANT, workspace };
    this.sessions = new SessionManager({ onLog: log ? (entry) => log(`${entry.language}: ${entry.line}`) : undefined });
    this.engine = new QueryEngine({
      locator: new SingleWorkspaceLocator(dir, TENANT, workspace),
      languages: this.languages,
      sessions: this.sessions,
    });
    // Messages naming files of the checkout say them workspace-relative, as in every answer.
    this.roots = [...new Set([dir, realpathSync(dir)])].map((root) => `${root.replace(/\/+$/, "")}/`);
  }

  supports(file: string): boolean {
    return this.languages.forFile(file) !== undefined;
  }

  async diagnostics(files: string[], waitMs: number): Promise<SourceAnswer> {
    try {
      const answer = await this.engine.diagnostics.diagnostics(this.ref, files, waitMs);
      return {
        state: answer.status.state,
        server: answer.status.server,
        files: answer.files.map((file) => ({
          file: file.file,
          fresh: file.fresh,
          findings: file.diagnostics.map((diagnostic) => this.finding(file.file, diagnostic)),
        })),
      };
    } catch (error) {
      if (error instanceof RunnerError) throw new SourceError(error.code, error.message);
      throw error;
    }
  }

  private finding(file: string, diagnostic: Diagnostic) {
    return {
      file,
      line: diagnostic.range.start.line,
      column: diagnostic.range.start.column,
      endLine: diagnostic.range.end.line,
      endColumn: diagnostic.range.end.column,
      severity: severityFromLsp(diagnostic.severity),
      code: diagnostic.code,
      source: diagnostic.source,
      message: this.roots.reduce((message, root) => message.replaceAll(root, ""), diagnostic.message),
    };
  }

  close(): Promise<void> {
    return this.sessions.close();
  }
}
