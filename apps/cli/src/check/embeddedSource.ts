// Diagnostics from language servers started in this process on a local checkout, through the
// runner's embedded engine (the same code that answers the gateway's `diagnostics` tool).
import { realpathSync } from "node:fs";
import {
  type Diagnostic,
  type EmbeddedEngine,
  LanguageConfigError,
  openEmbeddedEngine,
  RunnerError,
} from "@lspmesh/lsp-runner";
import { severityFromLsp } from "./findings.js";
import { CheckError, type DiagnosticsSource, type SourceAnswer, SourceError } from "./source.js";

export class EmbeddedSource implements DiagnosticsSource {
  readonly description = "embedded language servers";
  readonly maxWaitMs = Number.POSITIVE_INFINITY;

  private constructor(
    private readonly engine: EmbeddedEngine,
    /** Prefixes stripped from messages, so files of the checkout read workspace-relative as in every answer. */
    private readonly roots: readonly string[],
  ) {}

  /** `workspace` only names the sessions (e.g. "head", "base"); `dir` is the checkout. */
  static async open(
    dir: string,
    workspace: string,
    log?: (line: string) => void,
    languagesFile?: string,
  ): Promise<EmbeddedSource> {
    const engine = await openEmbeddedEngine({ dir, workspace, log, ...(languagesFile ? { languagesFile } : {}) }).catch(
      (error: unknown) => {
        throw error instanceof LanguageConfigError ? new CheckError(error.message) : error;
      },
    );
    const roots = [...new Set([dir, realpathSync(dir)])].map((root) => `${root.replace(/\/+$/, "")}/`);
    return new EmbeddedSource(engine, roots);
  }

  supports(file: string): boolean {
    return this.engine.supports(file);
  }

  async diagnostics(files: string[], waitMs: number): Promise<SourceAnswer> {
    try {
      const answer = await this.engine.diagnostics({ files, waitMs });
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
    return this.engine.close();
  }
}
