// One request object per engine query: what to ask, where, and the caller's abort signal. Named
// fields keep call sites readable as queries grow options.
import type { Range } from "../lsp/session/positionEncoding.js";
import type { PositionTarget, WorkspaceEdit, WorkspaceRef } from "./answers.js";

export type LocationKind = "definition" | "typeDefinition" | "implementation";
export type CallDirection = "incoming" | "outgoing";
export type TypeDirection = "supertypes" | "subtypes";

/** A type, not an interface, so that it fits LSP's FormattingOptions (an index signature). */
export type FormattingOptions = { tabSize: number; insertSpaces: boolean };

export interface Query {
  ref: WorkspaceRef;
  /** Aborted when the caller gives up (gRPC cancellation or deadline). */
  signal?: AbortSignal | undefined;
}

export interface FileQuery extends Query {
  file: string;
}

export interface DocumentSymbolsQuery extends FileQuery {
  /**
   * Close the document again when this query opened it (background indexing: the server is not
   * left holding, checking and reporting on every file of the workspace). Default false.
   */
  transient?: boolean;
}

export interface PositionQuery extends Query {
  at: PositionTarget;
}

export interface LocationsQuery extends PositionQuery {
  kind: LocationKind;
}

export interface ReferencesQuery extends PositionQuery {
  includeDeclaration: boolean;
  /** Most references returned; 0 = all. */
  limit: number;
  /** Index of the first one returned (paging); default 0. */
  offset?: number;
}

export interface WorkspaceSymbolsQuery extends Query {
  query: string;
  /** Only this language's servers ("" = every configured language). */
  languageId: string;
  limit: number;
  /** These languages exactly (a gateway fan-out's share); overrides languageId when not empty. */
  onlyLanguages?: readonly string[] | undefined;
}

export interface CompletionQuery extends PositionQuery {
  limit: number;
  resolve: boolean;
}

/** A file, or part of it (both ends optional: the whole file). */
export interface RangeQuery extends FileQuery {
  range?: { start?: Range["start"]; end?: Range["end"] } | undefined;
}

export interface CodeActionsQuery extends RangeQuery {
  kinds: string[];
  /** Apply the action with exactly this title ("" = list only). */
  applyTitle: string;
}

export interface FormatQuery extends FileQuery {
  options?: FormattingOptions | undefined;
  apply: boolean;
}

export interface RenameSymbolQuery extends PositionQuery {
  newName: string;
  apply: boolean;
}

export interface RenameFileQuery extends FileQuery {
  newFile: string;
  apply: boolean;
}

export interface ApplyEditQuery extends Query {
  edit: WorkspaceEdit;
}

export interface HierarchyQuery<Direction> extends PositionQuery {
  direction: Direction;
  depth: number;
}

export type CallHierarchyQuery = HierarchyQuery<CallDirection>;
export type TypeHierarchyQuery = HierarchyQuery<TypeDirection>;

export interface DiagnosticsQuery extends Query {
  files: string[];
  waitMs: number;
  /** Whole-workspace requests: only these languages' files (empty = every configured language). */
  onlyLanguages?: readonly string[] | undefined;
}
