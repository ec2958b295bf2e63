// Editing assistance at a position: completion (+ completionItem/resolve), signature help, and
// inlay hints for a range.

import type {
  CompletionList,
  CompletionItem as LspCompletionItem,
  MarkupContent,
} from "vscode-languageserver-protocol";
import {
  CompletionRequest,
  CompletionResolveRequest,
  InlayHintRequest,
  SignatureHelpRequest,
} from "vscode-languageserver-protocol";
import { fromLspRange, toLspRange, unitsToCodePoints } from "../lsp/session/positionEncoding.js";
import type { CompletionAnswer, CompletionItem, InlayHintsAnswer, SignatureHelpAnswer } from "./answers.js";
import { type DocumentContext, type EngineContext, requireCapability } from "./engineContext.js";
import type { CompletionQuery, PositionQuery, RangeQuery } from "./queries.js";

/** Completion items returned when the caller gives no limit (default 50), and at most (500). */
const DEFAULT_COMPLETION_LIMIT = 50;
const MAX_COMPLETION_LIMIT = 500;
/** Items resolved (completionItem/resolve, one request each) when the caller asks, at most (50). */
const MAX_RESOLVED_COMPLETIONS = 50;

/** LSP CompletionItemKind 1…25 as names. */
const COMPLETION_KINDS = [
  "",
  "text",
  "method",
  "function",
  "constructor",
  "field",
  "variable",
  "class",
  "interface",
  "module",
  "property",
  "unit",
  "value",
  "enum",
  "keyword",
  "snippet",
  "color",
  "file",
  "reference",
  "folder",
  "enumMember",
  "constant",
  "struct",
  "event",
  "operator",
  "typeParameter",
];

const INLAY_HINT_KINDS: Record<number, string> = { 1: "type", 2: "parameter" };

const IDENTIFIER_CHAR = /[\p{L}\p{N}\p{Mn}\p{Mc}\p{Pc}$]/u;

export class AssistanceQueries {
  constructor(private readonly engine: EngineContext) {}

  /**
   * The server's completions, narrowed as editors do: items whose filter text starts with the
   * word before the position (ignoring case), in the server's sort order.
   */
  async completion({ ref, at, limit, resolve, signal }: CompletionQuery): Promise<CompletionAnswer> {
    const context = await this.engine.openDocument(ref, at.file);
    requireCapability(context.session, "completionProvider", CompletionRequest.method);
    const resolved = this.engine.resolvePosition(context, at);
    const result = await this.engine.query(
      context.session,
      CompletionRequest.type,
      { ...this.engine.positionParams(context, resolved), context: { triggerKind: 1 } },
      signal,
    );
    const list: CompletionList = Array.isArray(result)
      ? { items: result, isIncomplete: false }
      : (result ?? { items: [], isIncomplete: false });
    const prefix = wordBefore(context.document.lines[resolved.line - 1] ?? "", resolved.column).toLowerCase();
    const matching = list.items
      .filter((item) => (item.filterText ?? item.label).toLowerCase().startsWith(prefix))
      .sort((a, b) => compare(a.sortText ?? a.label, b.sortText ?? b.label) || compare(a.label, b.label));
    const max = Math.min(limit > 0 ? limit : DEFAULT_COMPLETION_LIMIT, MAX_COMPLETION_LIMIT);
    const chosen = matching.slice(0, max);
    const canResolve = Boolean(context.session.capabilities.completionProvider?.resolveProvider);
    const resolveCount = resolve && canResolve ? Math.min(chosen.length, MAX_RESOLVED_COMPLETIONS) : 0;
    const resolvedItems = await Promise.all(
      chosen
        .slice(0, resolveCount)
        .map((item) => this.engine.query(context.session, CompletionResolveRequest.type, item, signal)),
    );
    const items = [
      ...resolvedItems.map((item) => this.convertCompletion(context, item, true)),
      ...chosen.slice(resolveCount).map((item) => this.convertCompletion(context, item, false)),
    ];
    return this.engine.withStatus<CompletionAnswer>(
      context,
      { items, incomplete: list.isIncomplete, total: matching.length },
      { empty: items.length === 0, resolved: at.symbol ? resolved : undefined },
    );
  }

  async signatureHelp({ ref, at, signal }: PositionQuery): Promise<SignatureHelpAnswer> {
    const context = await this.engine.openDocument(ref, at.file);
    requireCapability(context.session, "signatureHelpProvider", SignatureHelpRequest.method);
    const resolved = this.engine.resolvePosition(context, at);
    const result = await this.engine.query(
      context.session,
      SignatureHelpRequest.type,
      { ...this.engine.positionParams(context, resolved), context: { triggerKind: 1, isRetrigger: false } },
      signal,
    );
    const signatures = result?.signatures ?? [];
    const activeSignature =
      signatures.length === 0 ? -1 : Math.min(result?.activeSignature ?? 0, signatures.length - 1);
    const active = signatures[activeSignature];
    const given = active?.activeParameter ?? result?.activeParameter ?? 0;
    // -1 when the signature has no such parameter (gopls says 0 for a call of a function without any).
    const activeParameter = given >= 0 && given < (active?.parameters?.length ?? 0) ? given : -1;
    const parameter = active?.parameters?.[activeParameter];
    let activeParameterLabel = "";
    if (active && parameter) {
      activeParameterLabel =
        typeof parameter.label === "string"
          ? parameter.label
          : sliceUnits(active.label, parameter.label, context.session.encoding);
    }
    const documentation = [docText(active?.documentation), docText(parameter?.documentation)]
      .filter(Boolean)
      .join("\n\n");
    return this.engine.withStatus<SignatureHelpAnswer>(
      context,
      {
        signatures: signatures.map((s) => s.label),
        activeSignature,
        activeParameter,
        activeParameterLabel,
        documentation,
      },
      { empty: signatures.length === 0, resolved: at.symbol ? resolved : undefined },
    );
  }

  async inlayHints({ ref, file, range, signal }: RangeQuery): Promise<InlayHintsAnswer> {
    const context = await this.engine.openDocument(ref, file);
    requireCapability(context.session, "inlayHintProvider", InlayHintRequest.method);
    const wanted = range?.start ? this.engine.resolveRange(context, range) : this.engine.documentRange(context);
    const { lines } = context.document;
    const result = await this.engine.query(
      context.session,
      InlayHintRequest.type,
      { textDocument: { uri: context.document.uri }, range: toLspRange(lines, wanted, context.session.encoding) },
      signal,
    );
    const hints = (result ?? []).map((hint) => ({
      position: fromLspRange(lines, { start: hint.position, end: hint.position }, context.session.encoding).start,
      label: typeof hint.label === "string" ? hint.label : hint.label.map((part) => part.value).join(""),
      kind: INLAY_HINT_KINDS[hint.kind ?? 0] ?? "",
    }));
    return this.engine.withStatus<InlayHintsAnswer>(context.session, { hints }, { empty: hints.length === 0 });
  }

  private convertCompletion(context: DocumentContext, item: LspCompletionItem, resolved: boolean): CompletionItem {
    const edit = item.textEdit;
    const editRange = edit ? ("range" in edit ? edit.range : edit.replace) : undefined;
    return {
      label: item.label,
      kind: COMPLETION_KINDS[item.kind ?? 0] ?? "",
      detail: item.detail ?? item.labelDetails?.description ?? "",
      documentation: docText(item.documentation),
      insertText: edit?.newText ?? item.insertText ?? item.label,
      replaceRange: editRange ? fromLspRange(context.document.lines, editRange, context.session.encoding) : undefined,
      resolved,
    };
  }
}

/** The identifier characters right before a 1-based code-point column. */
function wordBefore(line: string, column: number): string {
  const chars = [...line].slice(0, column - 1);
  let start = chars.length;
  while (start > 0 && IDENTIFIER_CHAR.test(chars[start - 1]!)) start--;
  return chars.slice(start).join("");
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A [start, end) slice of a label given in the negotiated encoding's units. */
function sliceUnits(label: string, [start, end]: [number, number], encoding: DocumentContext["session"]["encoding"]) {
  const from = unitsToCodePoints(label, start, encoding);
  const to = unitsToCodePoints(label, end, encoding);
  return [...label].slice(from, to).join("");
}

function docText(doc: string | MarkupContent | undefined): string {
  if (!doc) return "";
  return typeof doc === "string" ? doc : doc.value;
}
