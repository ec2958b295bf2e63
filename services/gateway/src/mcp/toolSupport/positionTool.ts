// The read tools about one position in a file (hover, find_definition, completions, …) share their
// body: check the position, ask the runner of the file's language, shape its answer.
import type { CallOptions } from "@lspmesh/grpc";
import type { z } from "zod";
import type { RunnerClient } from "../../routing/runnerRouter.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import { defineTool, type GatewayTool, type ToolAnswer } from "../defineTool.js";
import { type PositionArguments, type PositionAt, positionFrom } from "./shared.js";

/** The part of a position RPC's request every position tool fills in. */
export interface PositionRequest {
  workspace: WorkspaceTarget;
  at: PositionAt;
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
  answer(answer: Answer, at: PositionAt, args: z.output<Input>): ToolAnswer<z.output<Output>>;
}

export function positionTool<
  Input extends z.ZodObject & z.ZodType<PositionArguments>,
  Output extends z.ZodObject,
  Answer,
>(spec: PositionToolSpec<Input, Output, Answer>): GatewayTool {
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: spec.input,
    output: spec.output,
    async run(args, call) {
      // The position is checked before the workspace is looked up: argument errors come first.
      const at = positionFrom(args);
      const workspace = await call.workspace(args.workspace);
      const answer = await call.sendForFile(workspace, at.file, (runner, options) =>
        spec.ask(runner, { workspace, at }, options, args),
      );
      return spec.answer(answer, at, args);
    },
  });
}
