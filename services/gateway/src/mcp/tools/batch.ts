// batch: up to 20 read queries in one call, run in parallel (each to its own runner), each
// answered or failed on its own.
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { defineTool, type GatewayTool } from "../defineTool.js";
import { counted, lines } from "../text.js";
import type { ToolCall } from "../toolCall.js";
import { toGatewayError } from "../toolErrors.js";

export const MAX_BATCH = 20;

const resultOutput = z.object({
  tool: z.string(),
  ok: z.boolean(),
  text: z.string().describe("The query's readable answer, or its error."),
  structured: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("The query's structured answer (that tool's output schema)."),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

const output = z.object({
  results: z.array(resultOutput).describe("One per query, in the order given."),
  failed: z.number().int().describe("How many queries failed."),
});

/** The batch tool over the given tools; only read-only ones (and no batch) may be batched. */
export function batchTool(tools: () => readonly GatewayTool[]): GatewayTool {
  const batchable = () => tools().filter((tool) => tool.name !== "batch");
  const input = z.object({
    queries: z
      .array(
        z.object({
          tool: z.string().min(1).describe("A read tool's name, e.g. hover, find_references, diagnostics."),
          arguments: z.record(z.string(), z.unknown()).default({}).describe("That tool's arguments."),
        }),
        { error: "queries must be a list of { tool, arguments }" },
      )
      .min(1, { error: "queries must not be empty" })
      .max(MAX_BATCH, { error: `at most ${MAX_BATCH} queries per batch` })
      .describe(
        `Up to ${MAX_BATCH} read queries, e.g. [{"tool":"hover","arguments":{"file":"src/a.ts","symbol":"x"}}].`,
      ),
  });
  return defineTool({
    name: "batch",
    title: "Batch of read queries",
    description:
      `Run up to ${MAX_BATCH} read queries (find_definition, find_references, hover, document_symbols, diagnostics, completions, …) in one call, in parallel. ` +
      "Each query is { tool, arguments } with that tool's usual arguments and gets its own answer or error; one failing query does not fail the others. " +
      "Write calls (apply: true, apply_title, apply_workspace_edit) are not allowed in a batch.",
    input,
    output,
    async run(args, call) {
      const byName = new Map(batchable().map((tool) => [tool.name, tool]));
      let done = 0;
      const results = await Promise.all(
        args.queries.map(async (query) => {
          try {
            return await answerQuery(byName, query, call);
          } finally {
            done += 1;
            call.progress(`${done} of ${args.queries.length} queries answered`, args.queries.length);
          }
        }),
      );
      const failed = results.filter((result) => !result.ok).length;
      return { text: batchText(results, failed), structured: { results, failed } };
    },
  });
}

type QueryResult = z.output<typeof resultOutput>;

/** One query's answer, or its coded error (anything else is a bug and fails the batch). */
async function answerQuery(
  byName: ReadonlyMap<string, GatewayTool>,
  query: { tool: string; arguments: Record<string, unknown> },
  call: ToolCall,
): Promise<QueryResult> {
  try {
    if (query.tool === "batch")
      throw new GatewayError("INVALID_ARGUMENT", "'batch' cannot be batched; put its queries in this batch instead");
    const tool = byName.get(query.tool);
    if (!tool)
      throw new GatewayError(
        "INVALID_ARGUMENT",
        `unknown tool '${query.tool}'; batch takes read tools such as hover or find_references (tools/list names them all)`,
      );
    if (tool.writes(query.arguments))
      throw new GatewayError(
        "INVALID_ARGUMENT",
        `a batch runs read queries only; call ${query.tool} on its own to write`,
      );
    const answer = await tool.invoke(query.arguments, call);
    return {
      tool: query.tool,
      ok: true,
      text: answer.text,
      structured: answer.structured as Record<string, unknown>,
    };
  } catch (error) {
    const gatewayError = toGatewayError(error);
    if (!gatewayError) throw error;
    return {
      tool: query.tool,
      ok: false,
      text: `${gatewayError.code}: ${gatewayError.message}`,
      error: { code: gatewayError.code, message: gatewayError.message },
    };
  }
}

function batchText(results: readonly QueryResult[], failed: number): string {
  return lines(
    `${counted(results.length, "query", "queries")}${failed > 0 ? `, ${failed} failed` : ""}:`,
    ...results.flatMap((result, index) => [
      "",
      `## ${index + 1}. ${result.tool}${result.ok ? "" : " (failed)"}`,
      result.text,
    ]),
  );
}
