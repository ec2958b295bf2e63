// Where diagnostics come from: language servers run in this process (embedded) or a gateway's
// `diagnostics` tool. Both answer in the same shape, so the rest of the check cannot tell them apart.
import type { Finding } from "./findings.js";

export interface SourceFileAnswer {
  file: string;
  /** True when the diagnostics belong to the file's current content. */
  fresh: boolean;
  findings: Finding[];
}

export interface SourceAnswer {
  files: SourceFileAnswer[];
  /** Language server state when it answered ("ready", "indexing", …). */
  state: string;
  /** Language server name, e.g. "typescript". */
  server: string;
}

export interface DiagnosticsSource {
  /** Shown in messages: "embedded language servers" or "gateway http://…". */
  readonly description: string;
  /**
   * Whether a language server is configured for the file, when this source knows it without
   * asking (embedded); undefined when only a request can tell (gateway).
   */
  supports(file: string): boolean | undefined;
  /** Diagnostics of `files`, waiting up to `waitMs` for ones computed from their current content. */
  diagnostics(files: string[], waitMs: number): Promise<SourceAnswer>;
  /** Largest `waitMs` one request may ask for. */
  readonly maxWaitMs: number;
  close(): Promise<void>;
}

/** Stable lspmesh error codes (docs/tools.md) as both sources report them. */
export class SourceError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "SourceError";
  }
}

/** A failure that stops the check with exit code 2: the infrastructure, not the code, is at fault. */
export class CheckError extends Error {
  override name = "CheckError";
}
