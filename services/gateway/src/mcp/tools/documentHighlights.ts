// document_highlights: where, in one file, the symbol at a position is read, written or named —
// one cheap request where find_references would search the whole workspace.
import type { DocumentHighlightsAnswer } from "@lspmesh/proto";
import { z } from "zod";
import type { ToolAnswer } from "../defineTool.js";
import { answerText, counted, describeTarget } from "../text.js";
import { positionTool } from "../toolSupport/positionTool.js";
import {
  answerStatusShape,
  type PositionAt,
  positionArguments,
  rangeFrom,
  rangeShape,
  statusFrom,
} from "../toolSupport/shared.js";

const input = z.object(positionArguments);

const highlightOutput = z.object({
  ...rangeShape,
  kind: z
    .enum(["text", "read", "write"])
    .describe("write: assigned here; read: its value used here; text: named here (servers that do not tell)."),
});

const output = z.object({
  ...answerStatusShape,
  highlights: z.array(highlightOutput).describe("The places in the asked file, in the server's order."),
});

export function documentHighlightsAnswer(
  answer: DocumentHighlightsAnswer,
  at: PositionAt,
): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const highlights = answer.highlights.map((highlight) => ({
    ...rangeFrom(highlight.range),
    kind: highlightKind(highlight.kind),
  }));
  const target = describeTarget(at, status);
  const text = answerText(
    status,
    highlights.length > 0,
    `No highlights for ${target}.`,
    `${counted(highlights.length, "place")} in ${at.file} for ${target}:`,
    ...highlights.map((h) => `  ${h.line}:${h.column}-${h.end_line}:${h.end_column} ${h.kind}`),
  );
  return { text, structured: { ...status, highlights } };
}

function highlightKind(kind: string): "text" | "read" | "write" {
  return kind === "read" || kind === "write" ? kind : "text";
}

export const documentHighlightsTool = positionTool({
  name: "document_highlights",
  title: "Document highlights",
  description:
    "Every place in the same file where the symbol at a position is read, written or named, as an editor " +
    "highlights them; cheaper than find_references when one file is enough. " +
    "Point at code with file plus line and column (both 1-based; column counts Unicode code points), " +
    "or with file plus symbol (the exact identifier) and optionally line as a hint, which needs no column.",
  input,
  output,
  ask: (runner, request, options) => runner.documentHighlights(request, options),
  answer: documentHighlightsAnswer,
});
