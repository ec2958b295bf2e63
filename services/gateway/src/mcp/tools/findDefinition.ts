// find_definition, find_type_definition, find_implementations: places the identifier at a
// position leads to, each with its code line. One factory; the three differ in RPC and wording.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { CallOptions } from "@lspmesh/grpc";
import type { LocationsAnswer, PositionRequestSchema } from "@lspmesh/proto";
import { z } from "zod";
import type { RunnerClient } from "../../routing/runnerRouter.js";
import { defineTool, type GatewayTool, type ToolAnswer } from "../defineTool.js";
import { counted, describeTarget, emptyAnswerText, lines, locationText, statusHeader } from "../text.js";
import {
  answerStatusShape,
  locationFrom,
  locationOutput,
  type PositionAt,
  positionArguments,
  positionFrom,
  statusFrom,
} from "../toolSupport/shared.js";

const input = z.object(positionArguments);

const output = z.object({
  ...answerStatusShape,
  locations: z.array(locationOutput).describe("The locations found; usually one for a definition."),
});

/** How the answer names what it found: "definition", "type definition", "implementation". */
export function locationsAnswer(
  answer: LocationsAnswer,
  at: PositionAt,
  noun = "definition",
): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const locations = answer.locations.map(locationFrom);
  const target = describeTarget(at, status);
  const text =
    locations.length === 0
      ? emptyAnswerText(status, `No ${noun} found for ${target}.`)
      : lines(statusHeader(status), `${counted(locations.length, noun)} of ${target}:`, ...locations.map(locationText));
  return { text, structured: { ...status, locations } };
}

/** Kept for the tests and callers of the first version. */
export const definitionAnswer = (answer: LocationsAnswer, at: PositionAt) => locationsAnswer(answer, at);

const POINTING =
  "Point at code with file plus line and column (both 1-based; column counts Unicode code points), " +
  "or with file plus symbol (the exact identifier) and optionally line as a hint, which needs no column. " +
  "Answers include the language server's state; partial=true means the server was not ready, so retry shortly.";

function locationsTool(spec: {
  name: string;
  title: string;
  noun: string;
  description: string;
  rpc: (
    runner: RunnerClient,
  ) => (request: MessageInitShape<typeof PositionRequestSchema>, options: CallOptions) => Promise<LocationsAnswer>;
}): GatewayTool {
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: `${spec.description} ${POINTING}`,
    input,
    output,
    async run(args, call) {
      const at = positionFrom(args);
      const workspace = await call.workspace(args.workspace);
      const answer = await call.send(workspace, call.languageOf(workspace, at.file), (runner, options) =>
        spec.rpc(runner)({ workspace, at }, options),
      );
      return locationsAnswer(answer, at, spec.noun);
    },
  });
}

export const findDefinitionTool = locationsTool({
  name: "find_definition",
  title: "Find definition",
  noun: "definition",
  description:
    "Go to definition: where the identifier at a position is defined, with the code line of each definition.",
  rpc: (runner) => runner.findDefinition,
});

export const findTypeDefinitionTool = locationsTool({
  name: "find_type_definition",
  title: "Find type definition",
  noun: "type definition",
  description:
    "Go to type definition: where the type of the expression or variable at a position is declared (for `const x = new Foo()`, where Foo is), with code lines.",
  rpc: (runner) => runner.findTypeDefinition,
});

export const findImplementationsTool = locationsTool({
  name: "find_implementations",
  title: "Find implementations",
  noun: "implementation",
  description:
    "Implementations of the interface, abstract class or abstract/interface member at a position: the classes and methods that implement it, with code lines.",
  rpc: (runner) => runner.findImplementations,
});
