// find_definition: where the symbol at a position is defined, with the code line of each place.
import type { LocationsAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { counted, describeTarget, emptyAnswerText, lines, locationText, statusHeader } from "../text.js";
import {
  answerStatusShape,
  locationFrom,
  locationOutput,
  type PositionAt,
  positionArguments,
  positionFrom,
  statusFrom,
} from "./shared.js";

const input = z.object(positionArguments);

const output = z.object({
  ...answerStatusShape,
  locations: z.array(locationOutput).describe("Definition locations; usually one."),
});

export function definitionAnswer(answer: LocationsAnswer, at: PositionAt): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const locations = answer.locations.map(locationFrom);
  const target = describeTarget(at, status);
  const text =
    locations.length === 0
      ? emptyAnswerText(status, `No definition found for ${target}.`)
      : lines(
          statusHeader(status),
          `${counted(locations.length, "definition")} of ${target}:`,
          ...locations.map(locationText),
        );
  return { text, structured: { ...status, locations } };
}

export const findDefinitionTool = defineTool({
  name: "find_definition",
  title: "Find definition",
  description:
    "Go to definition: where the identifier at a position is defined, with the code line of each definition. " +
    "Point at code with file plus line and column (both 1-based; column counts Unicode code points), " +
    "or with file plus symbol (the exact identifier) and optionally line as a hint, which needs no column. " +
    "Answers include the language server's state; partial=true means the server was not ready, so retry shortly.",
  input,
  output,
  async run(args, call) {
    const at = positionFrom(args);
    const { workspace, runner } = await call.target(args.workspace);
    const answer = await runner.findDefinition({ workspace, at }, call.runnerOptions());
    return definitionAnswer(answer, at);
  },
});
