// The read tools about one position in a file (hover, find_definition, completions, …) share their
// body: check the position, find the declaration when only a name was given (namedPosition.ts),
// ask the runner of the file's language, shape its answer.
import type { CallOptions } from "@lspmesh/grpc";
import type { z } from "zod";
import type { RunnerClient } from "../../routing/runnerRouter.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import { defineTool, type GatewayTool, type ToolAnswer } from "../defineTool.js";
import { lines } from "../text.js";
import type { ToolCall } from "../toolCall.js";
import { namedPositionShape, resolveNamedPosition } from "./namedPosition.js";
import {
  answerStatusShape,
  type NamedPositionArguments,
  namedPositionArguments,
  type PositionArguments,
  type PositionAt,
  positionOrName,
} from "./shared.js";

/** The part of a position RPC's request every position tool fills in. */
export interface PositionRequest {
  workspace: WorkspaceTarget;
  at: PositionAt;
}

/** What an answer may need beyond the runner's answer: more runner calls about the workspace. */
export interface PositionContext {
  call: ToolCall;
  workspace: WorkspaceTarget;
}

export interface PositionToolSpec<
  Input extends z.ZodObject & z.ZodType<PositionArguments>,
  Output extends z.ZodObject,
  Answer,
> {
  name: string;
  title: string;
  description: string;
  input: Input;
  output: Output;
  /** The runner's RPC for the checked position (`request`, plus what `args` add to it). */
  ask(runner: RunnerClient, request: PositionRequest, options: CallOptions, args: z.output<Input>): Promise<Answer>;
  /** The tool's answer made from the runner's. */
  answer(
    answer: Answer,
    at: PositionAt,
    args: z.output<Input>,
    context: PositionContext,
  ): ToolAnswer<z.output<Output>> | Promise<ToolAnswer<z.output<Output>>>;
  /** An answer of another kind when the runner call fails (e.g. a text search); undefined keeps the error. */
  fallback?(
    error: unknown,
    at: PositionAt,
    args: z.output<Input>,
    context: PositionContext,
  ): Promise<ToolAnswer<z.output<Output>> | undefined>;
}

export function positionTool<
  Input extends z.ZodObject & z.ZodType<PositionArguments>,
  Output extends z.ZodObject,
  Answer,
>(spec: PositionToolSpec<Input, Output, Answer>): GatewayTool {
  // Every position tool takes a name alone too (file optional) and may answer with its declaration or candidates.
  const input = spec.input.extend(namedPositionArguments);
  const output = spec.output.extend(namedPositionShape);
  // Checked here, when the tool is made: a tool whose answer cannot be empty fails at start, not on a call.
  const empty = emptyFields(spec.name, spec.output);
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input,
    output,
    async run(args, call): Promise<ToolAnswer<z.output<typeof output>>> {
      // The position is checked before the workspace is looked up: argument errors come first.
      const position = args as NamedPositionArguments;
      const where = positionOrName(position);
      const workspace = await call.workspace(position.workspace);
      const context = { call, workspace };
      if (where.case === "at") return answerAt(spec, where.at, args as z.output<Input>, context);
      const named = await resolveNamedPosition(call, workspace, where.name);
      if (named.outcome === "ambiguous") {
        const structured = { ...empty, ...named.status, candidates: named.candidates };
        return { text: named.text, structured: structured as z.output<typeof output> };
      }
      // The tool's own parts see the file the name resolved to, as if it had been given.
      const answer = await answerAt(spec, named.at, { ...args, file: named.at.file } as z.output<Input>, context);
      return {
        text: lines(named.preface, answer.text),
        structured: { ...answer.structured, declaration: named.declaration },
      };
    },
  });
}

async function answerAt<Input extends z.ZodObject & z.ZodType<PositionArguments>, Output extends z.ZodObject, Answer>(
  spec: PositionToolSpec<Input, Output, Answer>,
  at: PositionAt,
  args: z.output<Input>,
  context: PositionContext,
): Promise<ToolAnswer<z.output<Output>>> {
  const { call, workspace } = context;
  let answer: Answer;
  try {
    answer = await call.sendForFile(workspace, at.file, (runner, options) =>
      spec.ask(runner, { workspace, at }, options, args),
    );
  } catch (error) {
    const instead = await spec.fallback?.(error, at, args, context);
    if (instead) return instead;
    throw error;
  }
  return spec.answer(answer, at, args, context);
}

const STATUS_FIELDS = new Set(Object.keys(answerStatusShape));

/**
 * The tool's required output fields, empty ([], "", 0, false, or their default): what an answer
 * that asked no runner (an ambiguous name) carries besides its status and candidates.
 */
export function emptyFields(tool: string, output: z.ZodObject): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(output.shape as Record<string, z.ZodType>)) {
    if (STATUS_FIELDS.has(key)) continue;
    const def = schema.def as { type: string; defaultValue?: unknown };
    switch (def.type) {
      case "optional":
        continue;
      case "array":
        fields[key] = [];
        continue;
      case "string":
        fields[key] = "";
        continue;
      case "number":
        fields[key] = 0;
        continue;
      case "boolean":
        fields[key] = false;
        continue;
      case "default":
        fields[key] = def.defaultValue;
        continue;
      default:
        throw new Error(
          `${tool}: output field ${key} (${def.type}) has no empty value; make it optional so an answer about an ambiguous name can leave it out`,
        );
    }
  }
  return fields;
}
