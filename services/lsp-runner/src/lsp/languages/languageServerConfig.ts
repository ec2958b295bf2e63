// How one language server is configured: what the built-in defaults and the operator's languages
// file describe, and what a session starts.
export interface LanguageServerConfig {
  /** Stable id used in session keys and answers, e.g. "typescript". */
  readonly id: string;
  /** File extension (with dot, lower case) → LSP languageId sent in didOpen. */
  readonly extensions: Readonly<Record<string, string>>;
  /** A bare name looked up on PATH, or an absolute path. */
  readonly command: string;
  readonly args: readonly string[];
  readonly initializationOptions?: unknown;
  /** Served to `workspace/configuration` by section name (dotted sections are looked up by path). */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Added to the child's safelisted environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Per-request timeout in ms (default 30 000). */
  readonly requestTimeoutMs?: number;
  /** Time allowed for `initialize` in ms (default 60 000). */
  readonly startTimeoutMs?: number;
  /**
   * How long the server may keep a CPU busy without answering (it missed the liveness probe while
   * its processes used at least a tenth of a CPU) before it is restarted, ms (default 0: at once;
   * the built-in typescript and python 120 000). Never while file events keep arriving: a server
   * flooded by changes recovers sooner restarted.
   */
  readonly maxBusyMs?: number;
  /** Quiet time in ms after the last pushed diagnostics before they count as settled (default 300). */
  readonly diagnosticsSettleMs?: number;
  /**
   * Restart the server when a long-lived process of its tree dies while it lives on (a wrapper
   * such as typescript-language-server keeps answering "nothing found" after losing tsserver).
   * Off by default: servers whose helpers (cargo check, go list) come and go must not use it.
   */
  readonly watchProcessTree?: boolean;
  /**
   * Whether the server reads an open document's unsaved content when it checks other files that
   * use it (default true). clangd (before 15's --use-dirty-headers) reads included headers from
   * disk: an edit laid over a header (check_edit) is invisible to the files that include it.
   */
  readonly unsavedSeenByImporters?: boolean;
  /**
   * How to tell that a server that sends no progress has analysed the workspace: "workspaceSymbol"
   * asks for a name declared in a workspace file until the server finds it (pyright). Default: the
   * server's own progress reports.
   */
  readonly readinessProbe?: "workspaceSymbol";
  /**
   * Where the server reads which workspace files are its project's: "pyright" (`include` of
   * pyrightconfig.json or pyproject.toml's [tool.pyright]); "go" (gopls: the root module's
   * `./...`, goModuleScope.ts). Files outside are searched only while open, so workspace-wide
   * answers say which are left out (pyrightInclude.ts). Built-in only.
   */
  readonly includeConfig?: "pyright" | "go";
  /**
   * A server that indexes the whole project in the background and says so only once it starts
   * (clangd: work-done progress titled "indexing", begun some time after the first file opens,
   * later still on a busy machine): until one such progress has begun and ended, the session
   * counts as indexing, so whole-project answers are never `partial: false` from a half-built
   * index. It indexes only with a project database (`databases`, relative to the workspace root);
   * without one, every answer is partial with `missingNote`. Built-in only; a languages file that
   * changes the command drops it, and so do arguments that turn the index off
   * (`--background-index=false`); `--compile-commands-dir=DIR` moves where the database is looked for.
   */
  readonly indexProgress?: IndexProgress;
  /**
   * How to ask a server that pushes diagnostics for a file's complete diagnostics now:
   * "tsserverRequest" runs tsserver's syntactic, semantic and suggestion checks through
   * typescript-language-server's `typescript.tsserverRequest` command; "textDocumentDiagnostic"
   * sends `textDocument/diagnostic` though the server did not offer it (pyright with
   * `disablePullDiagnostics` answers it, checking the file, and keeps pushing). Default: servers
   * that offer `textDocument/diagnostic` are asked with it; the others are waited for.
   */
  readonly diagnosticsPull?: "tsserverRequest" | "textDocumentDiagnostic";
  /**
   * The most matches the server answers `workspace/symbol` with: an answer that reaches it may
   * leave matches out, and says so. `asked`: the server takes the number as the request's `limit`
   * (clangd, whose default is 100); otherwise it is the server's own fixed cap (gopls: 100).
   */
  readonly workspaceSymbolLimit?: WorkspaceSymbolLimit;
  /**
   * Methods never cancelled with `$/cancelRequest`: a timeout or the caller's abort stops the wait
   * for the answer, and the server finishes the request unasked. pyright 1.1.414 keeps the source
   * of its last find-references and cancels it when the next one comes; when a cancelled request
   * never reached its search, that source was disposed untouched, and cancelling it throws — every
   * later `textDocument/references` fails "this._token.cancel is not a function" until a restart.
   * Built-in only.
   */
  readonly uncancelledMethods?: readonly string[];
  /**
   * The server's name and version for answers, when its initialize answer does not give both
   * (typescript-language-server names no version and not the TypeScript it runs).
   */
  readonly serverDescription?: string;
  /** How to install the server, shown when its command cannot be started. */
  readonly install?: string;
  /**
   * "bwrap": always in the runner's bubblewrap sandbox (the server fails to start where there is
   * none); "none": never — only for pools dedicated to one tenant or a group that trusts each
   * other. Default: sandboxed wherever the runner can sandbox.
   */
  readonly sandbox?: "bwrap" | "none";
  /** Read-only paths the server needs inside the sandbox beyond its installation (`~/` = the runner's home). */
  readonly sandboxReadOnly?: readonly string[];
}

export interface WorkspaceSymbolLimit {
  readonly most: number;
  readonly asked?: boolean;
}

export interface IndexProgress {
  /** The title of the server's own progress (its "begin"). */
  readonly title: string;
  /** What is waited for until it begins, in notes ("clangd's background index has not started"). */
  readonly label: string;
  /** Files that make the server index (any one), relative to the workspace root. */
  readonly databases: readonly string[];
  /** The note on every answer when none of them exists. */
  readonly missingNote: string;
  /** How long the index may take to begin before calls stop waiting for it, ms (default 60 000). */
  readonly startTimeoutMs?: number;
}

/** A language as configured: built in or from the languages file, enabled or not. */
export interface LanguageDefinition extends LanguageServerConfig {
  /** Disabled languages are known (and can be enabled by the languages file) but serve nothing. */
  readonly enabled: boolean;
}

/** How long diagnostics may keep changing before they count as settled, ms (default 300). */
const DEFAULT_DIAGNOSTICS_SETTLE_MS = 300;

/** The language's `diagnosticsSettleMs`, or the default. */
export function diagnosticsSettleMs(language: LanguageServerConfig): number {
  return language.diagnosticsSettleMs ?? DEFAULT_DIAGNOSTICS_SETTLE_MS;
}
