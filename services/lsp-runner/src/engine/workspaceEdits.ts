// A language server's WorkspaceEdit as an lspmesh one: workspace-relative files, lspmesh positions,
// and the version and content hash each file's edits were computed against (checked on apply).
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type {
  CreateFile,
  DeleteFile,
  TextEdit as LspTextEdit,
  WorkspaceEdit as LspWorkspaceEdit,
  RenameFile,
  TextDocumentEdit,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import { splitLines } from "../lsp/documents/textDocument.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { fromLspRange } from "../lsp/session/positionEncoding.js";
import type { WorkspacePaths } from "../workspace/workspacePaths.js";
import type { FileEdit, FileOperation, WorkspaceEdit } from "./answers.js";
import { FileLines } from "./fileLines.js";
import { applyTextEdits } from "./textEdits.js";

type Change = TextDocumentEdit | CreateFile | RenameFile | DeleteFile;

export function emptyEdit(): WorkspaceEdit {
  return { files: [], operations: [] };
}

export function isEmptyEdit(edit: WorkspaceEdit): boolean {
  return edit.operations.length === 0 && edit.files.every((file) => file.edits.length === 0);
}

/**
 * Converts a server's edit. Refuses (OUTSIDE_WORKSPACE, naming no path) an edit that touches any
 * file outside the workspace: such an edit is neither shown nor applied, not even in part.
 */
export async function fromLspWorkspaceEdit(
  paths: WorkspacePaths,
  session: LanguageSession,
  edit: LspWorkspaceEdit | null | undefined,
): Promise<WorkspaceEdit> {
  const result = emptyEdit();
  if (!edit) return result;
  const changes: Change[] =
    edit.documentChanges ??
    Object.entries(edit.changes ?? {}).map(([uri, edits]) => ({ textDocument: { uri, version: null }, edits }));
  const snapshots = new FileLines(session);
  // Text of files already edited or created earlier in this edit: later edits apply on top.
  const pending = new Map<string, string>();
  // A rename's new path → the path the text edits address (edits apply before renames).
  const renamedFrom = new Map<string, string>();
  for (const change of changes) {
    if ("kind" in change) {
      result.operations.push(convertOperation(paths, change));
      if (change.kind === "create") pending.set(workspacePath(paths, change.uri), "");
      if (change.kind === "rename") {
        const from = workspacePath(paths, change.oldUri);
        renamedFrom.set(workspacePath(paths, change.newUri), renamedFrom.get(from) ?? from);
      }
      continue;
    }
    const named = workspacePath(paths, change.textDocument.uri);
    const file = renamedFrom.get(named) ?? named;
    const absolute = file === named ? fileURLToPath(change.textDocument.uri) : join(paths.root, file);
    const earlier = pending.get(file);
    if (earlier === undefined) await refuseLinkOut(paths, file);
    const snapshot = earlier === undefined ? await snapshots.snapshot(absolute) : undefined;
    if (snapshot?.sha256 === "") {
      throw new RunnerError(
        "INVALID_ARGUMENT",
        `the language server's edit changes ${file}, which cannot be read (missing, binary or over 8 MiB); it was neither shown nor applied`,
      );
    }
    const lines = earlier === undefined ? snapshot!.lines : splitLines(earlier);
    const fileEdit: FileEdit = {
      file,
      edits: change.edits.map((e: LspTextEdit) => ({
        range: fromLspRange(lines, e.range, session.encoding),
        newText: e.newText,
      })),
      expectedVersion: snapshot ? (change.textDocument.version ?? snapshot.version) : 0,
      expectedSha256: snapshot?.sha256 ?? "",
    };
    result.files.push(fileEdit);
    pending.set(file, applyTextEdits(earlier ?? lines.join("\n"), fileEdit.edits, file));
  }
  return result;
}

/**
 * Refuses an edit of a path inside the workspace that leads out of it (a symlink, or a folder on
 * the way that is one): its target is neither read for the preview nor written. Other problems
 * (missing, not a regular file) are left to the read that follows.
 */
async function refuseLinkOut(paths: WorkspacePaths, file: string): Promise<void> {
  try {
    await paths.resolveFile(file);
  } catch (error) {
    if (error instanceof RunnerError && error.code === "OUTSIDE_WORKSPACE")
      throw new RunnerError(
        "OUTSIDE_WORKSPACE",
        `the language server's edit changes ${file}, which links to a file outside the workspace; it was neither shown nor applied: leave that file out (rename it by hand), or replace the link by the file`,
      );
  }
}

function convertOperation(paths: WorkspacePaths, change: CreateFile | RenameFile | DeleteFile): FileOperation {
  switch (change.kind) {
    case "create":
      return { kind: "create", file: workspacePath(paths, change.uri), newFile: "" };
    case "rename":
      return {
        kind: "rename",
        file: workspacePath(paths, change.oldUri),
        newFile: workspacePath(paths, change.newUri),
      };
    case "delete":
      return { kind: "delete", file: workspacePath(paths, change.uri), newFile: "" };
  }
}

function workspacePath(paths: WorkspacePaths, uri: string): string {
  const path = paths.pathOfUri(uri);
  if (path === undefined || path === "") {
    throw new RunnerError(
      "OUTSIDE_WORKSPACE",
      "the language server's edit touches a file outside the workspace; it was neither shown nor applied",
    );
  }
  return path;
}
