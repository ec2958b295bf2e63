// Declares a tool once (schemas, description, annotations, body) and registers it on an McpServer.
import type {
  CallToolResult,
  McpServer,
  ServerContext,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from "@modelcontextprotocol/server";
import type { z } from "zod";
import { GatewayError } from "../errors.js";
import { runTool } from "./pipeline/runTool.js";
import { TEXT_BUDGET, withinBudget } from "./text.js";
import type { ToolCall, ToolDeps } from "./toolCall.js";
import { describeUnknown, unknownArguments } from "./unknownArguments.js";

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
  /** Hints for clients; default read-only (readOnlyHint, idempotentHint, not destructive). */
  annotations?: ToolAnnotations;
  /** True when these arguments make the call write files (lsp:write, no retry, audit). Default: never. */
  writes?: (args: z.output<Input>) => boolean;
  run(args: z.output<Input>, call: ToolCall): Promise<ToolAnswer<z.output<Output>>>;
  /** How a text cut at the budget says to see the rest (default: withinBudget's, by limit, offset or range). */
  narrow?: string;
}

/** What runs a tools/call of one tool: raw arguments in, the MCP result out (errors as tool errors). */
export type ToolHandler = (rawArgs: unknown, ctx: ServerContext) => Promise<CallToolResult>;

/** A tool ready to be registered on a fresh McpServer (one per request in stateless serving). */
export interface GatewayTool {
  readonly name: string;
  readonly annotations: ToolAnnotations;
  register(server: McpServer, deps: ToolDeps): void;
  /** The handler register() gives the server, for calls the shared server path dispatches itself. */
  handler(deps: ToolDeps): ToolHandler;
  /** Validated arguments → true when the call would write files. Throws INVALID_ARGUMENT. */
  writes(rawArgs: unknown): boolean;
  /** Runs the body inside an existing call (batch); throws GatewayError / gRPC errors. */
  invoke(rawArgs: unknown, call: ToolCall): Promise<ToolAnswer<unknown>>;
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  destructiveHint: false,
  openWorldHint: false,
};

/** Tools that edit files when asked to (apply): not read-only, destructive (they overwrite content). */
export function writingAnnotations(idempotent: boolean): ToolAnnotations {
  return { readOnlyHint: false, destructiveHint: true, idempotentHint: idempotent, openWorldHint: false };
}

export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ToolDefinition<Input, Output>,
): GatewayTool {
  const annotations = definition.annotations ?? READ_ONLY;
  // Built once per tool, shared by every per-request server.
  const config = {
    title: definition.title,
    description: definition.description,
    inputSchema: advertisedOnly(definition.input),
    outputSchema: memoizedOutput(definition.output),
    annotations,
  };
  const writes = (args: z.output<Input>) => definition.writes?.(args) ?? false;
  return {
    name: definition.name,
    annotations,
    register(server, deps) {
      // An object of its own per server: nothing one server does to it reaches another.
      server.registerTool(definition.name, { ...config }, toolHandler(definition, deps, writes));
    },
    handler: (deps) => toolHandler(definition, deps, writes),
    // A tool that never writes need not parse the arguments to say so (MCP serving asks for every tools/call).
    writes: definition.writes ? (rawArgs) => writes(parseArguments(definition.input, rawArgs)) : () => false,
    invoke: (rawArgs, call) => definition.run(parseArguments(definition.input, rawArgs), call),
  };
}

/** The MCP handler of one tool: arguments validated by the tool, the body run through the call pipeline. */
function toolHandler<Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ToolDefinition<Input, Output>,
  deps: ToolDeps,
  writes: (args: z.output<Input>) => boolean,
): ToolHandler {
  return async (rawArgs, ctx) => {
    let args: z.output<Input>;
    try {
      args = parseArguments(definition.input, rawArgs);
    } catch (error) {
      // Still one logged, counted call (and subject to limits) with the coded error.
      return runTool(deps, ctx, definition.name, async () => {
        throw error;
      });
    }
    const body = async (call: ToolCall): Promise<CallToolResult> => {
      const answer = await definition.run(args, call);
      return {
        content: [{ type: "text", text: withinBudget(answer.text, TEXT_BUDGET, definition.narrow) }],
        structuredContent: answer.structured,
      };
    };
    return runTool(deps, ctx, definition.name, body, { write: writes(args) });
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
      jsonSchema: memoized(schema["~standard"].jsonSchema),
    },
  };
}

/**
 * The output schema for tools/list, its JSON Schema memoized. The SDK would also check every
 * answer against it with zod (a tenth of the gateway's CPU per call, measured in bench/): answers
 * are built by typed code from the runner's typed messages, and clients check structuredContent
 * against the advertised schema themselves (the e2e tests do so with the official client).
 */
function memoizedOutput<Output extends z.ZodObject>(schema: Output): Output {
  const standard = schema["~standard"];
  const wrapped = {
    "~standard": {
      ...standard,
      validate: (value: unknown) => ({ value }),
      jsonSchema: memoized(standard.jsonSchema),
    },
  };
  return wrapped as unknown as Output;
}

type JsonSchemaConverter = z.ZodObject["~standard"]["jsonSchema"];

/**
 * Converting a zod schema to JSON Schema costs about a millisecond per tool, and stateless
 * serving builds a fresh server (and tools/list) for every request: convert once per target.
 */
function memoized(converter: JsonSchemaConverter): JsonSchemaConverter {
  const cache = new Map<string, Record<string, unknown>>();
  const cached =
    (kind: "input" | "output") =>
    (options: Parameters<JsonSchemaConverter["input"]>[0]): Record<string, unknown> => {
      const key = `${kind}:${JSON.stringify(options)}`;
      let schema = cache.get(key);
      if (!schema) {
        schema = converter[kind](options);
        cache.set(key, schema);
      }
      // Shared, not copied: the SDK spreads the root into its own object and only reads the rest.
      return schema;
    };
  return { input: cached("input"), output: cached("output") };
}

/**
 * Validates tool arguments; failures become INVALID_ARGUMENT naming each bad field, and each
 * argument the tool does not know (with the ones it accepts).
 */
export function parseArguments<Input extends z.ZodObject>(schema: Input, rawArgs: unknown): z.output<Input> {
  const parsed = schema.safeParse(rawArgs ?? {});
  const unknown = unknownArguments(schema, rawArgs);
  if (parsed.success && unknown.length === 0) return parsed.data;
  const issues = parsed.success ? [] : parsed.error.issues;
  const problems = issues.map((issue) => {
    const field = issue.path.map(String).join(".");
    // zod words a missing argument as a type error ("expected string, received undefined").
    if (field !== "" && issue.code === "invalid_type" && /received undefined$/.test(issue.message))
      return `${field} is required (${issue.expected})`;
    return field === "" || issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`;
  });
  if (unknown.length > 0) problems.unshift(describeUnknown(unknown));
  throw new GatewayError("INVALID_ARGUMENT", `invalid arguments: ${problems.join("; ")}`);
}
