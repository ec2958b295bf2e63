// Engine answers ⇄ lspmesh.v1 messages. Positions already are lspmesh positions on both sides.

import type { MessageInitShape } from "@bufbuild/protobuf";
import type * as pb from "@lspmesh/proto";
import { FileOperation_Kind, ServerState } from "@lspmesh/proto";
import type * as engine from "../engine/answers.js";
import type { DiagnosticsDelta } from "../engine/editCheck.js";
import { invalidArgument } from "../errors.js";

const STATE: Record<engine.ServerStateName, ServerState> = {
  starting: ServerState.STARTING,
  indexing: ServerState.INDEXING,
  ready: ServerState.READY,
  degraded: ServerState.DEGRADED,
  failed: ServerState.FAILED,
};

export function workspaceRef(ref: pb.WorkspaceRef | undefined): engine.WorkspaceRef {
  if (!ref?.tenant || !ref.workspace) throw invalidArgument("the request names no tenant and workspace");
  return { tenant: ref.tenant, workspace: ref.workspace };
}

export function positionTarget(spec: pb.PositionSpec | undefined): engine.PositionTarget {
  if (!spec) throw invalidArgument("the request names no position");
  switch (spec.target.case) {
    case "position":
      return { file: spec.file, position: { line: spec.target.value.line, column: spec.target.value.column } };
    case "symbol": {
      const { name, lineHint, occurrence, columnHint } = spec.target.value;
      return { file: spec.file, symbol: { name, lineHint, occurrence, columnHint } };
    }
    default:
      throw invalidArgument("give 'line' and 'column', or 'symbol'");
  }
}

export function answerStatus(status: engine.AnswerStatus): MessageInitShape<typeof pb.AnswerStatusSchema> {
  return { ...status, state: STATE[status.state] };
}

export function serverState(state: engine.ServerStateName): ServerState {
  return STATE[state];
}

export function documentSymbol(symbol: engine.DocumentSymbol): MessageInitShape<typeof pb.DocumentSymbolSchema> {
  return { ...symbol, children: symbol.children.map(documentSymbol) };
}

const OPERATION_KIND: Record<engine.FileOperationKind, FileOperation_Kind> = {
  create: FileOperation_Kind.CREATE,
  rename: FileOperation_Kind.RENAME,
  delete: FileOperation_Kind.DELETE,
};

export function workspaceEdit(edit: engine.WorkspaceEdit): MessageInitShape<typeof pb.WorkspaceEditSchema> {
  return {
    files: edit.files,
    operations: edit.operations.map((operation) => ({ ...operation, kind: OPERATION_KIND[operation.kind] })),
  };
}

export function editAnswer(
  answer: engine.EditAnswer,
  delta?: DiagnosticsDelta,
): MessageInitShape<typeof pb.EditAnswerSchema> {
  return {
    status: answerStatus(answer.status),
    edit: workspaceEdit(answer.edit),
    applied: answer.applied,
    rename: answer.rename,
    ...(delta ? { delta: diagnosticsDelta(delta) } : {}),
  };
}

export function codeAction(action: engine.CodeAction): MessageInitShape<typeof pb.CodeActionSchema> {
  return { ...action, edit: workspaceEdit(action.edit) };
}

export function hierarchyNode(node: engine.HierarchyNode): MessageInitShape<typeof pb.HierarchyNodeSchema> {
  return { ...node, children: node.children.map(hierarchyNode) };
}

/** A caller's edit: every position present, every operation with a kind. */
export function workspaceEditFrom(edit: pb.WorkspaceEdit | undefined): engine.WorkspaceEdit {
  if (!edit) throw invalidArgument("the request carries no edit");
  return {
    files: edit.files.map((file) => ({
      file: file.file,
      edits: file.edits.map((textEdit) => ({ range: rangeFrom(textEdit.range, file.file), newText: textEdit.newText })),
      expectedVersion: file.expectedVersion,
      expectedSha256: file.expectedSha256,
    })),
    operations: edit.operations.map((operation) => {
      const kind = (Object.keys(OPERATION_KIND) as engine.FileOperationKind[]).find(
        (name) => OPERATION_KIND[name] === operation.kind,
      );
      if (!kind)
        throw invalidArgument(`the operation on '${operation.file}' has no kind; give create, rename or delete`);
      if (kind === "rename" && !operation.newFile) {
        throw invalidArgument(`the rename of '${operation.file}' has no new_file`);
      }
      return { kind, file: operation.file, newFile: operation.newFile };
    }),
  };
}

/** A request's optional range: start and end as given (the engine validates them). */
export function optionalRange(
  range: pb.Range | undefined,
): { start?: engine.Position; end?: engine.Position } | undefined {
  if (!range) return undefined;
  return {
    start: range.start ? { line: range.start.line, column: range.start.column } : undefined,
    end: range.end ? { line: range.end.line, column: range.end.column } : undefined,
  };
}

function rangeFrom(range: pb.Range | undefined, file: string): engine.Range {
  if (!range?.start || !range.end)
    throw invalidArgument(`an edit of '${file}' has no complete range; give start and end`);
  return {
    start: { line: range.start.line, column: range.start.column },
    end: { line: range.end.line, column: range.end.column },
  };
}

/** A diagnostics delta (check_edit, applied edits) as the contract carries it. */
export function diagnosticsDelta(delta: DiagnosticsDelta): MessageInitShape<typeof pb.DiagnosticsDeltaSchema> {
  return {
    changes: delta.changes.map((change) => ({ file: change.file, state: change.state, diagnostic: change.diagnostic })),
    editedFiles: delta.editedFiles,
    importerFiles: delta.importerFiles,
    importersNotChecked: delta.importersNotChecked,
    partial: delta.partial,
    note: delta.note,
  };
}
