// search_symbols: symbols matching a query across every workspace the caller may see. Scatters
// workspace-symbol queries to the runners concerned in parallel under one deadline, merges and
// ranks what arrived, and names every workspace that did not answer (partial, never silent).
import { rankSymbols, symbolKindName, type WorkspaceSymbolsAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { counted, lines } from "../text.js";
import type { ToolCall } from "../toolCall.js";
import {
  type AnswerStatusOutput,
  answerStatusShape,
  limitArgument,
  locationFrom,
  locationOutput,
  mergeStatuses,
  statusFrom,
} from "../toolSupport/shared.js";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/** Deadline of the whole scatter, in ms (or the gateway's call deadline when that is shorter). */
export const SEARCH_DEADLINE_MS = 10_000;
/** Workspaces searched in one call; more are reported as skipped. */
export const MAX_WORKSPACES = 200;

const input = z.object({
  query: z
    .string({ error: "query must be a string" })
    .min(1, { error: "query must not be empty; give part of a symbol name" })
    .max(256, { error: "query is longer than 256 characters" })
    .describe("Symbol name or part of it, e.g. parseConfig or parseConf."),
  workspaces: z
    .array(z.string().min(1).max(256))
    .max(MAX_WORKSPACES)
    .optional()
    .describe("Only these of your workspaces; omit to search all of them."),
  limit: limitArgument(DEFAULT_LIMIT, MAX_LIMIT, "symbols after ranking"),
});

const WORKSPACE_OUTCOMES = ["ok", "partial", "failed", "timeout", "skipped"] as const;

const symbolOutput = z.object({
  workspace: z.string(),
  name: z.string(),
  kind: z.string(),
  container: z.string().optional(),
  location: locationOutput,
});

type SymbolOutput = z.output<typeof symbolOutput>;

const workspaceOutcomeOutput = z.object({
  workspace: z.string(),
  outcome: z
    .enum(WORKSPACE_OUTCOMES)
    .describe(
      "ok; partial (its server was not ready); failed or timeout (no answer: see code); skipped (over the limit).",
    ),
  code: z.string().optional(),
  message: z.string().optional(),
  count: z.number().int().describe("Symbols matching in it, before the limit."),
});

type WorkspaceOutcome = z.output<typeof workspaceOutcomeOutput>;

const output = z.object({
  ...answerStatusShape,
  query: z.string(),
  symbols: z.array(symbolOutput).describe("Ranked: exact name, then prefix, substring, fuzzy; then kind."),
  total: z.number().int().describe("Matches before the limit."),
  workspaces: z.array(workspaceOutcomeOutput).describe("Every workspace searched (or not), with its outcome."),
});

export interface WorkspaceResult {
  workspace: string;
  answers: WorkspaceSymbolsAnswer[];
  error?: GatewayError;
  missing?: string[];
}

export function searchAnswer(
  query: string,
  results: readonly WorkspaceResult[],
  skipped: readonly string[],
  limit: number,
): ToolAnswer<z.output<typeof output>> {
  const outcomes: WorkspaceOutcome[] = [];
  const symbols: SymbolOutput[] = [];
  const statuses: AnswerStatusOutput[] = [];
  let total = 0;
  for (const result of results) {
    if (result.error) {
      outcomes.push({
        workspace: result.workspace,
        outcome: result.error.code === "TIMEOUT" ? "timeout" : "failed",
        code: result.error.code,
        message: result.error.message,
        count: 0,
      });
      continue;
    }
    const status = mergeStatuses(
      result.answers.map((answer) => statusFrom(answer.status)),
      result.missing ?? [],
    );
    statuses.push(status);
    const found = result.answers.flatMap((answer) =>
      answer.symbols.map((symbol) => {
        const out: SymbolOutput = {
          workspace: result.workspace,
          name: symbol.name,
          kind: symbolKindName(symbol.kind),
          location: locationFrom(symbol.location ?? { file: "", snippet: "" }),
        };
        if (symbol.containerName) out.container = symbol.containerName;
        return out;
      }),
    );
    symbols.push(...found);
    // The runner ranks before its limit and counts every match (older runners: what they sent).
    const count = result.answers.reduce((sum, answer) => sum + Math.max(answer.total, answer.symbols.length), 0);
    total += count;
    const outcome: WorkspaceOutcome = {
      workspace: result.workspace,
      outcome: status.partial || status.state !== "ready" ? "partial" : "ok",
      count,
    };
    if (status.note) outcome.message = status.note;
    outcomes.push(outcome);
  }
  for (const workspace of skipped) {
    outcomes.push({
      workspace,
      outcome: "skipped",
      message: `only ${MAX_WORKSPACES} workspaces are searched per call; name them with workspaces`,
      count: 0,
    });
  }
  const gaps = outcomes.filter((outcome) => outcome.outcome !== "ok");
  const missingNote = gaps.map((gap) => `${gap.workspace}: ${gap.outcome}${gap.code ? ` (${gap.code})` : ""}`);
  const status = mergeStatuses(statuses, missingNote.length > 0 ? [`not complete: ${missingNote.join(", ")}`] : []);
  if (statuses.length === 0 && outcomes.length === 0) status.note = "no workspaces to search";
  const ranked = rankSymbols(symbols, query);
  const shown = ranked.slice(0, limit);
  const header =
    shown.length === 0
      ? gaps.length > 0
        ? `No symbols matching "${query}" found so far; some workspaces did not answer completely (see below), so retry shortly.`
        : `No symbols match "${query}" in ${counted(outcomes.length, "workspace")}.`
      : `${counted(total, "symbol")} matching "${query}" in ${counted(outcomes.length - gaps.filter((g) => g.outcome !== "partial").length, "workspace")}${total > shown.length ? `; showing the best ${shown.length} (raise limit for more)` : ""}:`;
  const text = lines(
    header,
    ...shown.map((symbol) => {
      const container = symbol.container ? ` (in ${symbol.container})` : "";
      const { file, line, column } = symbol.location;
      return `${symbol.kind.replaceAll("_", " ")} ${symbol.name}${container}  ${symbol.workspace}:${file}:${line}:${column}`;
    }),
    ...(gaps.length > 0
      ? [
          "",
          `Partial: ${counted(gaps.length, "workspace")} did not answer completely:`,
          ...gaps.map(
            (gap) =>
              `- ${gap.workspace}: ${gap.outcome}${gap.code ? ` ${gap.code}` : ""}${gap.message ? `: ${gap.message}` : ""}`,
          ),
        ]
      : []),
  );
  return { text, structured: { ...status, query, symbols: shown, total, workspaces: outcomes } };
}

async function searchOne(
  call: ToolCall,
  target: WorkspaceTarget,
  query: string,
  limit: number,
  deadlineMs: number,
): Promise<WorkspaceResult> {
  try {
    const parts = await call.sendEach(
      target,
      call.languagesOf(target),
      (runner, options, languages) =>
        runner.workspaceSymbols({ workspace: target, query, limit, languages: languages.filter(Boolean) }, options),
      // No failover: a cold start on another runner cannot finish under the search deadline, and
      // hundreds of them at once would swamp the pool; the workspace is labelled instead.
      { timeoutMs: deadlineMs, progress: false, failover: false },
    );
    const answers = parts.filter((part) => part.answer).map((part) => part.answer!);
    const failed = parts.filter((part) => part.error);
    if (answers.length === 0 && failed.length > 0)
      return { workspace: target.workspace, answers, error: failed[0]!.error! };
    const missing = failed.map((part) => `${part.languages.join(", ")}: ${part.error!.code}`);
    return { workspace: target.workspace, answers, missing };
  } catch (error) {
    if (error instanceof GatewayError) return { workspace: target.workspace, answers: [], error };
    throw error;
  }
}

export const searchSymbolsTool = defineTool({
  name: "search_symbols",
  title: "Search symbols everywhere",
  description:
    "Find classes, functions, types and other symbols by name across every workspace you may use (cluster-wide), ranked: exact name first, then prefix, substring and fuzzy matches, then by kind. " +
    "Each result names its workspace, file, 1-based line and column. Workspaces that did not answer in time are listed (partial=true), never silently dropped.",
  input,
  output,
  async run(args, call) {
    let targets = await call.visibleWorkspaces();
    if (args.workspaces) {
      const wanted = new Set(args.workspaces);
      const unknown = args.workspaces.filter((name) => !targets.some((target) => target.workspace === name));
      if (unknown.length > 0)
        throw new GatewayError(
          "NOT_FOUND",
          `unknown workspace '${unknown[0]}'; call workspace_status without a workspace to list yours`,
        );
      targets = targets.filter((target) => wanted.has(target.workspace));
    }
    const skipped = targets.slice(MAX_WORKSPACES).map((target) => target.workspace);
    targets = targets.slice(0, MAX_WORKSPACES);
    let answered = 0;
    const results = await Promise.all(
      targets.map(async (target) => {
        const result = await searchOne(
          call,
          target,
          args.query,
          args.limit,
          Math.min(SEARCH_DEADLINE_MS, call.callTimeoutMs),
        );
        answered += 1;
        call.progress(`${answered} of ${targets.length} workspaces answered`, targets.length);
        return result;
      }),
    );
    return searchAnswer(args.query, results, skipped, args.limit);
  },
});
