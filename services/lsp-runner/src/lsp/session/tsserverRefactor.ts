// The edit of a typescript-language-server refactoring (extract to function or constant, move to a
// new file, convert …), asked of tsserver directly through `typescript.tsserverRequest`. The code
// action itself carries no edit, only the command `_typescript.applyRefactoring`, and running that
// command is no way to get one: the wrapper creates a moved-to file on disk itself and then asks the
// client to apply the rest (`workspace/applyEdit`), so nothing could be previewed, checked or kept
// read-only. The command's argument is exactly tsserver's getEditsForRefactor request; its answer
// is converted as the wrapper converts it, a file that does not exist yet (TypeScript 5.9 does not
// set `isNewFile` for "Move to a new file", and addresses its text at line 0) becoming a create
// operation followed by the file's text.
import { lstatSync } from "node:fs";

import { pathToFileURL } from "node:url";
import {
  type Command,
  type CreateFile,
  ExecuteCommandRequest,
  type TextDocumentEdit,
  type WorkspaceEdit,
} from "vscode-languageserver-protocol";
import { TSSERVER_REQUEST_COMMAND } from "./tsserverDiagnostics.js";
import type { ServerRequest } from "./tsserverNavto.js";

export const APPLY_REFACTORING_COMMAND = "_typescript.applyRefactoring";

/** tsserver's protocol.Location: 1-based line, 1-based UTF-16 offset. */
interface TsLocation {
  line: number;
  offset: number;
}

/** tsserver's protocol.FileCodeEdits. */
interface FileCodeEdits {
  fileName: string;
  textChanges: Array<{ start: TsLocation; end: TsLocation; newText: string }>;
  isNewFile?: boolean;
}

interface RefactorEditInfo {
  edits?: FileCodeEdits[];
  notApplicableReason?: string;
}

export type RefactorEdit = { edit: WorkspaceEdit } | { notApplicable: string };

/** Whether the command is one whose edit `tsserverRefactorEdit` can compute. */
export function isTsserverRefactoring(command: Command | undefined): command is Command {
  return command?.command === APPLY_REFACTORING_COMMAND && typeof command.arguments?.[0] === "object";
}

/** The refactoring's edit as tsserver computes it, or why it does not apply here. */
export async function tsserverRefactorEdit(request: ServerRequest, command: Command): Promise<RefactorEdit> {
  const response = await request<{ body?: RefactorEditInfo } | null>(ExecuteCommandRequest.method, {
    command: TSSERVER_REQUEST_COMMAND,
    arguments: ["getEditsForRefactor", command.arguments?.[0]],
  });
  const body = response?.body;
  if (!body) return { notApplicable: "tsserver computed no edit for it here" };
  if (body.notApplicableReason) return { notApplicable: body.notApplicableReason };
  const documentChanges: Array<TextDocumentEdit | CreateFile> = [];
  for (const file of body.edits ?? []) {
    const uri = pathToFileURL(file.fileName).href;
    if (file.isNewFile || !exists(file.fileName)) documentChanges.push({ kind: "create", uri });
    documentChanges.push({
      textDocument: { uri, version: null },
      edits: file.textChanges.map(({ start, end, newText }) => ({
        range: { start: position(start), end: position(end) },
        newText,
      })),
    });
  }
  return { edit: { documentChanges } };
}

/** Whether anything (a link too) is at `path`: what is there is never taken for a new file. */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function position({ line, offset }: TsLocation): { line: number; character: number } {
  return { line: Math.max(line - 1, 0), character: Math.max(offset - 1, 0) };
}
