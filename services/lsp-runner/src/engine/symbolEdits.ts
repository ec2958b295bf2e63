// replace_symbol_body, insert_before_symbol, insert_after_symbol: the edit of a symbol found by its
// path in the server's document symbols (symbolLocation.ts), shaped by symbolEditText.ts. The edit
// carries the hash of the content the symbols were computed on, so the apply path refuses a file
// changed in between; applying is the caller's (the same atomic path as every edit).
import {
  DocumentSymbolRequest,
  type DocumentSymbol as LspDocumentSymbol,
  type SymbolInformation,
} from "vscode-languageserver-protocol";
import { RunnerError } from "../errors.js";
import { fromLspRange, type PositionEncoding } from "../lsp/session/positionEncoding.js";
import type { DocumentSymbol, EditAnswer, WorkspaceRef } from "./answers.js";
import { type EngineContext, requireCapability } from "./engineContext.js";
import { lineBreakOf, nameOnlyDeclaration, type SymbolEditMode, symbolTextEdit } from "./symbolEditText.js";
import { findSymbolByPath, type OutlineEntry, outlineEntries } from "./symbolLocation.js";
import { changingEdits } from "./textEdits.js";
import { emptyEdit } from "./workspaceEdits.js";

export type { SymbolEditMode } from "./symbolEditText.js";

export interface SymbolEditQuery {
  ref: WorkspaceRef;
  file: string;
  /** "name" or "Container.name" (document symbol names joined by "."). */
  symbolPath: string;
  mode: SymbolEditMode;
  text: string;
  signal?: AbortSignal;
}

/** The edit, not applied (applied: false); an empty edit when the text is already there. */
export async function symbolEditPreview(engine: EngineContext, query: SymbolEditQuery): Promise<EditAnswer> {
  const { ref, symbolPath, mode, text, signal } = query;
  if (!symbolPath) throw new RunnerError("INVALID_ARGUMENT", "give the symbol, e.g. makeGreeting or Greeter.greet");
  if (mode !== "replace" && text === "") throw new RunnerError("INVALID_ARGUMENT", "give the text to insert");
  const context = await engine.openDocument(ref, query.file);
  const { session, document, file } = context;
  requireCapability(session, "documentSymbolProvider", DocumentSymbolRequest.method);
  // The content the symbols are computed on: its hash guards the edit.
  const { text: content, hash, lines } = document;
  const result = await engine.query(
    session,
    DocumentSymbolRequest.type,
    { textDocument: { uri: document.uri } },
    signal,
  );
  if (document.hash !== hash)
    throw new RunnerError(
      "STALE_EDIT",
      `${file.path} changed while its symbols were read; nothing was changed: try again`,
    );
  const outline = outlineOf(result ?? [], lines, session.encoding);
  const stateNote = session.state === "ready" ? "" : `the ${session.language.id} server is ${session.state}`;
  const found = findSymbolByPath(outline.entries, symbolPath, file.path, outline.topLevel, stateNote);
  if (outline.flat && mode !== "insertBefore") {
    throw new RunnerError(
      "UNSUPPORTED",
      `the ${session.language.id} language server (${session.serverName}) lists symbols without their whole range (SymbolInformation), so '${symbolPath}' cannot be ${mode === "replace" ? "replaced" : "inserted after"} safely; use insert_before_symbol, or edit by line and column (apply_workspace_edit)`,
    );
  }
  if (mode !== "insertBefore" && nameOnlyDeclaration(lines, found.symbol)) {
    const { line } = found.symbol.range.start;
    throw new RunnerError(
      "UNSUPPORTED",
      `the ${session.language.id} language server (${session.serverName}) gives '${symbolPath}' only its name as its range, not its whole declaration (its value after the name is left out), so it cannot be ${mode === "replace" ? "replaced" : "inserted after"} safely; read it with read_file from line ${line} and edit it by line and column (apply_workspace_edit), or use insert_before_symbol`,
    );
  }
  const edit = symbolTextEdit(mode, lines, found.symbol.range, text, lineBreakOf(content));
  const edits = changingEdits(content, [edit], file.path);
  const workspaceEdit =
    edits.length > 0
      ? { files: [{ file: file.path, edits, expectedVersion: 0, expectedSha256: hash }], operations: [] }
      : emptyEdit();
  return engine.withStatus<EditAnswer>(
    session,
    { edit: workspaceEdit, applied: false },
    { empty: false, resolved: found.symbol.selectionRange.start },
  );
}

interface Outline {
  entries: OutlineEntry[];
  topLevel: string[];
  /** The server answered SymbolInformation: ranges may cover the name only. */
  flat: boolean;
}

/** The server's answer as outline entries in lspmesh positions. */
function outlineOf(
  answer: ReadonlyArray<LspDocumentSymbol | SymbolInformation>,
  lines: readonly string[],
  encoding: PositionEncoding,
): Outline {
  const range = (lspRange: LspDocumentSymbol["range"]) => fromLspRange(lines, lspRange, encoding);
  const flat = answer.some((symbol) => "location" in symbol);
  if (flat) {
    const entries = (answer as SymbolInformation[]).map((symbol) => {
      const converted = range(symbol.location.range);
      const container = symbol.containerName ? symbol.containerName.split(".") : [];
      const entry: DocumentSymbol = {
        name: symbol.name,
        detail: "",
        kind: symbol.kind,
        range: converted,
        selectionRange: converted,
        children: [],
      };
      return { names: [...container, symbol.name], symbol: entry };
    });
    const topLevel = entries.filter((entry) => entry.names.length === 1).map((entry) => entry.symbol.name);
    return { entries: bySourceOrder(entries), topLevel, flat };
  }
  const convert = (symbol: LspDocumentSymbol): DocumentSymbol => ({
    name: symbol.name,
    detail: symbol.detail ?? "",
    kind: symbol.kind,
    range: range(symbol.range),
    selectionRange: range(symbol.selectionRange),
    children: (symbol.children ?? []).map(convert),
  });
  const tree = (answer as LspDocumentSymbol[]).map(convert);
  const entries = bySourceOrder(outlineEntries(tree));
  const topLevel = entries.filter((entry) => entry.names.length === 1).map((entry) => entry.symbol.name);
  return { entries, topLevel, flat };
}

/** Servers list symbols in their own order (tsserver: by kind and name); errors read top-down. */
function bySourceOrder(entries: OutlineEntry[]): OutlineEntry[] {
  const start = (entry: OutlineEntry) => entry.symbol.selectionRange.start;
  return entries.sort((a, b) => start(a).line - start(b).line || start(a).column - start(b).column);
}
