// What the engine answers: lspmesh positions (1-based line, code-point column) and
// workspace-relative paths. Transport-neutral: the gRPC layer maps these onto proto messages.

import type { SlotStatus } from "../lsp/pool/sessionSlot.js";
import type { Position, Range } from "../lsp/session/positionEncoding.js";
import type { ServerStateName } from "../lsp/session/sessionState.js";

export type { Position, Range, ServerStateName };

export interface WorkspaceRef {
  tenant: string;
  workspace: string;
}

export interface PositionTarget {
  file: string;
  position?: Position;
  symbol?: { name: string; lineHint?: number; occurrence?: number; columnHint?: number };
}

export interface AnswerStatus {
  state: ServerStateName;
  language: string;
  server: string;
  partial: boolean;
  note: string;
  resolved?: Position;
  /** Files passed over in whole-workspace work, with why (the rest of the answer is unaffected). */
  skipped?: SkippedFile[];
}

export interface SkippedFile {
  file: string;
  reason: string;
}

export interface Location {
  /** Workspace-relative; for an external library file, "node_modules/…" or a system path. */
  file: string;
  range: Range;
  snippet: string;
  /** Outside the workspace (a library of the runner or the system): read-only. */
  external?: boolean;
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
  /** The best `limit` matches by the shared ranking (@lspmesh/proto rankSymbols). */
  symbols: WorkspaceSymbol[];
  /** Matches in the workspace before the limit. */
  total: number;
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
  /** Source files left unchecked by the whole-workspace file cap; a lower bound when truncatedAtLeast. */
  truncated: number;
  truncatedAtLeast: boolean;
}

/** A language server's state in a workspace (workspace_status): its session slot's own status. */
export type LanguageStatus = SlotStatus;

export interface CompletionItem {
  label: string;
  /** LSP CompletionItemKind as a lower-case name ("function", "method", …), "" when not given. */
  kind: string;
  detail: string;
  documentation: string;
  insertText: string;
  replaceRange?: Range;
  /** detail and documentation come from completionItem/resolve. */
  resolved: boolean;
}

export interface CompletionAnswer {
  status: AnswerStatus;
  items: CompletionItem[];
  incomplete: boolean;
  /** Items matching the word before the position, before the limit. */
  total: number;
}

export interface SignatureHelpAnswer {
  status: AnswerStatus;
  signatures: string[];
  /** -1 when the server names none. */
  activeSignature: number;
  activeParameter: number;
  activeParameterLabel: string;
  documentation: string;
}

export interface InlayHint {
  position: Position;
  label: string;
  /** "type", "parameter" or "". */
  kind: string;
}

export interface InlayHintsAnswer {
  status: AnswerStatus;
  hints: InlayHint[];
}

export interface TextEdit {
  range: Range;
  newText: string;
}

export interface FileEdit {
  file: string;
  edits: TextEdit[];
  /** Document version the edits were computed against; 0 = unchecked. */
  expectedVersion: number;
  /** sha256 of the content the edits were computed against; "" = unchecked. */
  expectedSha256: string;
}

export type FileOperationKind = "create" | "rename" | "delete";

export interface FileOperation {
  kind: FileOperationKind;
  file: string;
  /** Target of a rename. */
  newFile: string;
}

/**
 * Applied in this order: create operations, then the text edits (against the files' content
 * before any rename), then rename and delete operations in their order.
 */
export interface WorkspaceEdit {
  files: FileEdit[];
  operations: FileOperation[];
}

export interface RenameTarget {
  range: Range;
  placeholder: string;
}

export interface EditAnswer {
  status: AnswerStatus;
  edit: WorkspaceEdit;
  applied: boolean;
  rename?: RenameTarget;
}

export interface CodeAction {
  title: string;
  kind: string;
  preferred: boolean;
  edit: WorkspaceEdit;
  /** Server command the action runs when it has no edit of its own, or "". */
  command: string;
  disabledReason: string;
}

export interface CodeActionsAnswer {
  status: AnswerStatus;
  actions: CodeAction[];
  applied: boolean;
}

export interface HierarchyNode {
  name: string;
  kind: number;
  detail: string;
  location: Location;
  /** Where the calls are, in callSitesFile (call hierarchy only). */
  callSites: Range[];
  callSitesFile: string;
  children: HierarchyNode[];
}

export interface HierarchyAnswer {
  status: AnswerStatus;
  root?: HierarchyNode;
}
