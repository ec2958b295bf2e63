// Declares a read-only tool once (schemas, description, body) and registers it on an McpServer.
import type { McpServer, StandardSchemaWithJSON, ToolAnnotations } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { GatewayError } from "../errors.js";
import { runTool, type ToolCall, type ToolDeps } from "./toolCall.js";

/** What a tool body returns: readable text, and the structured form matching the output schema. */
export interface ToolAnswer<Structured> {
  text: string;
  structured: Structured;
}

export interface ToolDefinition<Input extends z.ZodObject, Output extends z.ZodObject> {
  name: string;
  title: string;
  /** Read by models to choose and call the tool: say what it answers and how to point at code. */
  description: string;
  input: Input;
  output: Output;
  run(args: z.output<Input>, call: ToolCall): Promise<ToolAnswer<z.output<Output>>>;
}

/** A tool ready to be registered on a fresh McpServer (one per request in stateless serving). */
export interface GatewayTool {
  readonly name: string;
  register(server: McpServer, deps: ToolDeps): void;
}

const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  destructiveHint: false,
  openWorldHint: false,
};

export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ToolDefinition<Input, Output>,
): GatewayTool {
  return {
    name: definition.name,
    register(server, deps) {
      server.registerTool(
        definition.name,
        {
          title: definition.title,
          description: definition.description,
          inputSchema: advertisedOnly(definition.input),
          outputSchema: definition.output,
          annotations: READ_ONLY,
        },
        (rawArgs, ctx) =>
          runTool(deps, ctx, definition.name, async (call) => {
            const answer = await definition.run(parseArguments(definition.input, rawArgs), call);
            return { content: [{ type: "text", text: answer.text }], structuredContent: answer.structured };
          }),
      );
    },
  };
}

/**
 * The schema's JSON Schema for tools/list, with validation left to the tool: the SDK reports its
 * own validation failures as uncoded text, while the tool reports them as INVALID_ARGUMENT.
 */
function advertisedOnly(schema: z.ZodObject): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    "~standard": {
      version: 1,
      vendor: "lspmesh",
      validate: (value) => ({ value: (value ?? {}) as Record<string, unknown> }),
      jsonSchema: schema["~standard"].jsonSchema,
    },
  };
}

/** Validates tool arguments; failures become INVALID_ARGUMENT naming each bad field. */
export function parseArguments<Input extends z.ZodObject>(schema: Input, rawArgs: unknown): z.output<Input> {
  const parsed = schema.safeParse(rawArgs ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.map(String).join(".");
    return field === "" || issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`;
  });
  throw new GatewayError("INVALID_ARGUMENT", `invalid arguments: ${problems.join("; ")}`);
}
