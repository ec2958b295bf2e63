// workspace_symbols: symbols whose names match a query, in one workspace.
import { rankSymbols, symbolKindName, type WorkspaceSymbol, type WorkspaceSymbolsAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { counted, emptyAnswerText, lines, statusHeader } from "../text.js";
import {
  answerStatusShape,
  collectParts,
  limitArgument,
  locationFrom,
  locationOutput,
  mergeStatuses,
  statusFrom,
  workspaceArgument,
} from "../toolSupport/shared.js";

/** Symbols listed by default, and at most (the runner's own maximum). */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

const input = z.object({
  workspace: workspaceArgument,
  query: z
    .string({ error: "query must be a string" })
    .min(1, { error: "query must not be empty; give part of a symbol name" })
    .max(256, { error: "query is longer than 256 characters" })
    .describe("Part of a symbol name, e.g. parseConf; servers match fuzzily, so exact case is not needed."),
  limit: limitArgument(DEFAULT_LIMIT, MAX_LIMIT, "symbols after ranking"),
});

const workspaceSymbolOutput = z.object({
  name: z.string(),
  kind: z.string().describe("Symbol kind in lower case, e.g. class, function, enum_member."),
  container: z.string().optional().describe("Enclosing symbol or module, when the server names one."),
  location: locationOutput.describe("Where the symbol is declared."),
});

type WorkspaceSymbolOutput = z.output<typeof workspaceSymbolOutput>;

const output = z.object({
  ...answerStatusShape,
  query: z.string(),
  symbols: z.array(workspaceSymbolOutput).describe("The best `limit` matches, ranked."),
  total: z.number().int().describe("Matches in the workspace before the limit."),
});

function symbolFrom(symbol: WorkspaceSymbol): WorkspaceSymbolOutput {
  const output: WorkspaceSymbolOutput = {
    name: symbol.name,
    kind: symbolKindName(symbol.kind),
    location: locationFrom(symbol.location ?? { file: "", snippet: "" }),
  };
  if (symbol.containerName) output.container = symbol.containerName;
  return output;
}

function symbolLine(symbol: WorkspaceSymbolOutput): string {
  const { file, line, column } = symbol.location;
  const container = symbol.container ? ` (in ${symbol.container})` : "";
  return `${symbol.kind.replaceAll("_", " ")} ${symbol.name}${container}  ${file}:${line}:${column}`;
}

export function workspaceSymbolsAnswer(
  answer: WorkspaceSymbolsAnswer,
  query: string,
  limit: number,
  missing: string[] = [],
): ToolAnswer<z.output<typeof output>> {
  return mergedWorkspaceSymbolsAnswer([answer], query, limit, missing);
}

/** Answers from several runners (one per language group): deduplicated, status merged. */
export function mergedWorkspaceSymbolsAnswer(
  answers: readonly WorkspaceSymbolsAnswer[],
  query: string,
  limit: number,
  missing: string[] = [],
): ToolAnswer<z.output<typeof output>> {
  const status =
    answers.length === 1 && missing.length === 0
      ? statusFrom(answers[0]!.status)
      : mergeStatuses(
          answers.map((answer) => statusFrom(answer.status)),
          missing,
        );
  const seen = new Set<string>();
  const unique = answers
    .flatMap((answer) => answer.symbols.map(symbolFrom))
    .filter((symbol) => {
      const key = `${symbol.name}\u0000${symbol.location.file}:${symbol.location.line}:${symbol.location.column}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  // Each runner ranked its matches before its limit; the merge of several is ranked again.
  const symbols = (answers.length > 1 ? rankSymbols(unique, query) : unique).slice(0, limit);
  const total = Math.max(
    answers.reduce((sum, answer) => sum + answer.total, 0),
    unique.length,
  );
  const more = total > symbols.length ? `; showing the best ${symbols.length} (raise limit for more)` : "";
  const text =
    symbols.length === 0
      ? emptyAnswerText(status, `No symbols match "${query}".`)
      : lines(
          statusHeader(status),
          `${counted(total, "symbol")} matching "${query}"${more}:`,
          ...symbols.map(symbolLine),
        );
  return { text, structured: { ...status, query, symbols, total } };
}

export const workspaceSymbolsTool = defineTool({
  name: "workspace_symbols",
  title: "Workspace symbols",
  description:
    "Find classes, functions, types, variables and other symbols by name across one workspace, " +
    "with the file, 1-based line and column of each declaration (ready to pass to the position tools), " +
    "ranked (exact name, prefix, substring, fuzzy; then by kind); total counts every match, limit (default 100) caps the list. " +
    "partial=true means the server was still indexing and more symbols may match later.",
  input,
  output,
  async run(args, call) {
    const workspace = await call.workspace(args.workspace);
    const parts = await call.sendEach(workspace, call.languagesOf(workspace), (runner, options, languages) =>
      runner.workspaceSymbols(
        { workspace, query: args.query, limit: args.limit, languages: languages.filter(Boolean) },
        options,
      ),
    );
    const { answers, missing } = collectParts(parts);
    return mergedWorkspaceSymbolsAnswer(answers, args.query, args.limit, missing);
  },
});
