// Document highlights: the places in one file where the symbol at a position is read, written or
// named (textDocument/documentHighlight) — cheaper than references when the caller looks at one file.
import { DocumentHighlightKind, DocumentHighlightRequest } from "vscode-languageserver-protocol";
import type { AnswerStatus, Range } from "../engine/answers.js";
import { type EngineContext, requireCapability } from "../engine/engineContext.js";
import type { PositionQuery } from "../engine/queries.js";
import { answerStatus, positionTarget, workspaceRef } from "../grpc/protoMapping.js";
import { fromLspRange } from "../lsp/session/positionEncoding.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export type HighlightKind = "text" | "read" | "write";

export interface DocumentHighlightsAnswer {
  status: AnswerStatus;
  /** In the server's order; ranges in the asked file, 1-based lines and code-point columns. */
  highlights: Array<{ range: Range; kind: HighlightKind }>;
}

const KIND_NAMES: Record<number, HighlightKind> = {
  [DocumentHighlightKind.Text]: "text",
  [DocumentHighlightKind.Read]: "read",
  [DocumentHighlightKind.Write]: "write",
};

export async function documentHighlights(
  engine: EngineContext,
  { ref, at, signal }: PositionQuery,
): Promise<DocumentHighlightsAnswer> {
  const context = await engine.openDocument(ref, at.file);
  requireCapability(context.session, "documentHighlightProvider", DocumentHighlightRequest.method);
  const resolved = engine.resolvePosition(context, at);
  const result = await engine.query(
    context.session,
    DocumentHighlightRequest.type,
    engine.positionParams(context, resolved),
    signal,
  );
  const highlights = (result ?? []).map((highlight) => ({
    range: fromLspRange(context.document.lines, highlight.range, context.session.encoding),
    // The protocol's default kind is Text.
    kind: KIND_NAMES[highlight.kind ?? DocumentHighlightKind.Text] ?? "text",
  }));
  return engine.withStatus<DocumentHighlightsAnswer>(
    context,
    { highlights },
    { empty: highlights.length === 0, resolved: at.symbol ? resolved : undefined, fileOnly: true },
  );
}

export const documentHighlightFeature = defineFeature({
  name: "document highlights",
  capabilities: { textDocument: { documentHighlight: {} } },
  cachedMethods: [DocumentHighlightRequest.method],
  rpc: (engine) => ({
    documentHighlights: rpcHandler(async (request, context) => {
      const answer = await documentHighlights(engine.context, {
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        signal: context.signal,
      });
      return { status: answerStatus(answer.status), highlights: answer.highlights };
    }),
  }),
});
