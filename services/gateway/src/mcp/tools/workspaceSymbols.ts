// workspace_symbols: symbols whose names match a query, in one workspace.
import { rankSymbols, type WorkspaceSymbol, type WorkspaceSymbolsAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { answerText, counted, pastTheEnd } from "../text.js";
import {
  answerStatusShape,
  collectParts,
  declaredSymbolFrom,
  limitArgument,
  locationOutput,
  offsetArgument,
  statusOfAnswers,
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
  offset: offsetArgument(
    `Index of the first ranked match to return (0-based), from next_offset of the previous answer; offset + limit reaches at most the best ${MAX_LIMIT}.`,
    MAX_LIMIT - 1,
    `offset must be below ${MAX_LIMIT}; narrow the query instead`,
  ),
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
  symbols: z.array(workspaceSymbolOutput).describe("Ranked matches from offset, at most limit of them."),
  total: z.number().int().describe("Matches in the workspace before the limit."),
  offset: z.number().int().describe("Rank (0-based) of the first symbol returned."),
  next_offset: z.number().int().optional().describe("Pass as offset for the next page; absent on the last page."),
});

function symbolFrom(symbol: WorkspaceSymbol): WorkspaceSymbolOutput {
  const output: WorkspaceSymbolOutput = declaredSymbolFrom(symbol);
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
  offset = 0,
): ToolAnswer<z.output<typeof output>> {
  return mergedWorkspaceSymbolsAnswer([answer], query, limit, missing, offset);
}

/** Answers from several runners (one per language group): deduplicated, status merged. */
export function mergedWorkspaceSymbolsAnswer(
  answers: readonly WorkspaceSymbolsAnswer[],
  query: string,
  limit: number,
  missing: string[] = [],
  offset = 0,
): ToolAnswer<z.output<typeof output>> {
  const status = statusOfAnswers(answers, missing);
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
  const ranked = answers.length > 1 ? rankSymbols(unique, query) : unique;
  const symbols = ranked.slice(offset, offset + limit);
  const total = Math.max(
    answers.reduce((sum, answer) => sum + answer.total, 0),
    unique.length,
  );
  // Pages reach the best MAX_LIMIT: the runners rank and cut there.
  const reachable = Math.min(total, MAX_LIMIT);
  const end = offset + symbols.length;
  const next = end < reachable && symbols.length > 0 ? end : undefined;
  const pastEnd = symbols.length === 0 && offset > 0;
  const shown = pastEnd
    ? `; ${pastTheEnd(offset, `the ${reachable} reachable`, "the best")}`
    : offset > 0 || end < total
      ? `; showing ${offset + 1}-${end}${next !== undefined ? ` (offset: ${next} for the next ones)` : total > reachable ? ` (the best ${MAX_LIMIT} are reachable; narrow the query for the rest)` : ""}`
      : "";
  const text = answerText(
    status,
    total > 0,
    `No symbols match "${query}".${qualifiedHint(query)}`,
    `${counted(total, "symbol")} matching "${query}"${shown}${pastEnd ? "" : ":"}`,
    ...symbols.map(symbolLine),
  );
  return {
    text,
    structured: { ...status, query, symbols, total, offset, ...(next !== undefined ? { next_offset: next } : {}) },
  };
}

/** Servers match a symbol's own name: a name path (`Console.print`, `ns::f`) is find_symbol's to resolve. */
function qualifiedHint(query: string): string {
  return /\.|::/.test(query.trim())
    ? ` The server matches a symbol's own name, not a path: find_symbol takes "${query.trim()}" as container and name.`
    : "";
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
    const parts = await call.sendToWorkspace(workspace, (runner, options, languages) =>
      runner.workspaceSymbols(
        {
          workspace,
          query: args.query,
          limit: Math.min(args.offset + args.limit, MAX_LIMIT),
          languages: languages.filter(Boolean),
        },
        options,
      ),
    );
    const { answers, missing } = collectParts(parts);
    return mergedWorkspaceSymbolsAnswer(answers, args.query, args.limit, missing, args.offset);
  },
});
