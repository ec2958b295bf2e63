// What the engine answers: lspmesh positions (1-based line, code-point column) and
// workspace-relative paths. Transport-neutral: the gRPC layer maps these onto proto messages.
import type { Position, Range } from "../lsp/positionEncoding.js";
import type { ServerStateName } from "../lsp/sessionState.js";

export type { Position, Range, ServerStateName };

export interface WorkspaceRef {
  tenant: string;
  workspace: string;
}

export interface PositionTarget {
  file: string;
  position?: Position;
  symbol?: { name: string; lineHint?: number; occurrence?: number };
}

export interface AnswerStatus {
  state: ServerStateName;
  language: string;
  server: string;
  partial: boolean;
  note: string;
  resolved?: Position;
}

export interface Location {
  file: string;
  range: Range;
  snippet: string;
}

export interface LocationsAnswer {
  status: AnswerStatus;
  locations: Location[];
}

export interface ReferencesAnswer extends LocationsAnswer {
  total: number;
}

export interface HoverAnswer {
  status: AnswerStatus;
  contents: string;
  range?: Range;
}

export interface DocumentSymbol {
  name: string;
  detail: string;
  /** LSP SymbolKind number (1 = File … 26 = TypeParameter). */
  kind: number;
  range: Range;
  selectionRange: Range;
  children: DocumentSymbol[];
}

export interface DocumentSymbolsAnswer {
  status: AnswerStatus;
  symbols: DocumentSymbol[];
}

export interface WorkspaceSymbol {
  name: string;
  kind: number;
  containerName: string;
  location: Location;
}

export interface WorkspaceSymbolsAnswer {
  status: AnswerStatus;
  symbols: WorkspaceSymbol[];
}

export interface Diagnostic {
  range: Range;
  /** LSP DiagnosticSeverity: 1 error, 2 warning, 3 information, 4 hint. */
  severity: number;
  code: string;
  source: string;
  message: string;
}

export interface FileDiagnostics {
  file: string;
  version: number;
  contentSha256: string;
  fresh: boolean;
  diagnostics: Diagnostic[];
}

export interface DiagnosticsAnswer {
  status: AnswerStatus;
  files: FileDiagnostics[];
  epoch: number;
}

export interface LanguageStatus {
  language: string;
  state: ServerStateName;
  server: string;
  progress: string;
  lastError: string;
  /** Starts that followed a failure of the server (crash, hang, protocol error). */
  restarts: number;
  openDocuments: number;
}
