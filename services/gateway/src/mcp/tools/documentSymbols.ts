// document_symbols: the outline of one file, nested, with kinds and ranges.
import { type DocumentSymbol, type DocumentSymbolsAnswer, symbolKindName } from "@lspmesh/proto";
import { z } from "zod";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { answerText, counted } from "../text.js";
import {
  answerStatusShape,
  fileArgument,
  type RangeOutput,
  rangeFrom,
  rangeShape,
  statusFrom,
  workspaceArgument,
} from "../toolSupport/shared.js";

const input = z.object({ workspace: workspaceArgument, file: fileArgument });

export interface DocumentSymbolOutput {
  name: string;
  kind: string;
  detail?: string | undefined;
  line: number;
  column: number;
  range: RangeOutput;
  children?: DocumentSymbolOutput[] | undefined;
}

const documentSymbolOutput: z.ZodType<DocumentSymbolOutput> = z.object({
  name: z.string(),
  kind: z.string().describe("Symbol kind in lower case, e.g. class, method, enum_member."),
  detail: z.string().optional().describe("Extra detail from the server, e.g. a signature."),
  line: z.number().int().describe("1-based line of the symbol's name: use it with column in position tools."),
  column: z.number().int().describe("1-based column (Unicode code points) of the symbol's name."),
  range: z.object(rangeShape).describe("The whole extent of the symbol, body included."),
  get children() {
    return z.array(documentSymbolOutput).optional();
  },
});

const output = z.object({
  ...answerStatusShape,
  file: z.string(),
  symbols: z.array(documentSymbolOutput).describe("Top-level symbols, each with nested children."),
});

function symbolFrom(symbol: DocumentSymbol): DocumentSymbolOutput {
  const name = symbol.selectionRange?.start ?? symbol.range?.start ?? { line: 1, column: 1 };
  const output: DocumentSymbolOutput = {
    name: symbol.name,
    kind: symbolKindName(symbol.kind),
    line: name.line,
    column: name.column,
    range: rangeFrom(symbol.range),
  };
  if (symbol.detail) output.detail = symbol.detail;
  if (symbol.children.length > 0) output.children = symbol.children.map(symbolFrom);
  return output;
}

function outlineLines(symbols: DocumentSymbolOutput[], depth = 0): string[] {
  return symbols.flatMap((symbol) => {
    const detail = symbol.detail ? `: ${symbol.detail}` : "";
    const extent =
      symbol.range.end_line > symbol.range.line ? ` (lines ${symbol.range.line}-${symbol.range.end_line})` : "";
    const line = `${"  ".repeat(depth)}${symbol.kind.replaceAll("_", " ")} ${symbol.name}${detail}  ${symbol.line}:${symbol.column}${extent}`;
    return [line, ...outlineLines(symbol.children ?? [], depth + 1)];
  });
}

function countSymbols(symbols: DocumentSymbolOutput[]): number {
  return symbols.reduce((sum, symbol) => sum + 1 + countSymbols(symbol.children ?? []), 0);
}

export function documentSymbolsAnswer(
  answer: DocumentSymbolsAnswer,
  file: string,
): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const symbols = answer.symbols.map(symbolFrom);
  const text = answerText(
    status,
    symbols.length > 0,
    `No symbols in ${file}.`,
    `Outline of ${file} (${counted(countSymbols(symbols), "symbol")}):`,
    ...outlineLines(symbols),
  );
  return { text, structured: { ...status, file, symbols } };
}

/** document_symbols takes no limit or range: what its cut text points at instead. */
export const OUTLINE_NARROW =
  "see a part: find_symbol with name and file (include_body: true for its source), or read_file with start_line and end_line";

export const documentSymbolsTool = defineTool({
  name: "document_symbols",
  title: "Document symbols",
  description:
    "Outline of one file: its classes, functions, methods, variables and so on, nested, each with its kind, " +
    "the 1-based line and column of its name (ready to pass to the position tools) and the lines it spans.",
  input,
  output,
  narrow: OUTLINE_NARROW,
  async run(args, call) {
    const workspace = await call.workspace(args.workspace);
    const answer = await call.sendForFile(workspace, args.file, (runner, options) =>
      runner.documentSymbols({ workspace, file: args.file }, options),
    );
    return documentSymbolsAnswer(answer, args.file);
  },
});
