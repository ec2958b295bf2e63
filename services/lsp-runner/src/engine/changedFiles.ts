// The files whose diagnostics an applied edit's delta compares (EditCheck.aroundApply): the files
// it edits as text, under the paths the edit names them by (text edits apply before renames), and
// the files it renames, compared before under the old path and after under the new one. Deleted
// files have no diagnostics after, and created ones none before: only text edits bring those in.
import type { WorkspaceEdit } from "./answers.js";

export interface ChangedFiles {
  /** Paths before the edit. */
  files: string[];
  /** Old path → new path of every renamed file. */
  renamed: Map<string, string>;
}

export function changedFilesOf(edit: WorkspaceEdit): ChangedFiles {
  const renamed = new Map<string, string>();
  for (const operation of edit.operations) {
    if (operation.kind === "rename") renamed.set(operation.file, operation.newFile);
  }
  const deleted = new Set(edit.operations.filter((o) => o.kind === "delete").map((o) => o.file));
  const files = [...edit.files.map((file) => file.file), ...renamed.keys()].filter((file) => !deleted.has(file));
  return { files: [...new Set(files)], renamed };
}
