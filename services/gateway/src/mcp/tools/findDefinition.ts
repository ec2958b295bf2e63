// find_definition, find_type_definition, find_implementations: places the identifier at a
// position leads to, each with its code line. One factory; the three differ in RPC and wording.
// find_definition for a file no language server reads answers from a text search instead.
import type { LocationsAnswer, SearchTextAnswer } from "@lspmesh/proto";
import { z } from "zod";
import type { GatewayTool, ToolAnswer } from "../defineTool.js";
import { answerText, counted, describeTarget, locationText } from "../text.js";
import { type PositionContext, positionTool } from "../toolSupport/positionTool.js";
import {
  answerStatusShape,
  locationFrom,
  locationOutput,
  type PositionAt,
  positionArguments,
  statusFrom,
} from "../toolSupport/shared.js";
import {
  answerSourceOutput,
  DECLARATION_RANK,
  type FileLanguage,
  textMatchLocation,
  textSearchInstead,
  textSearchStatus,
} from "../toolSupport/textFallback.js";

/** Text matches asked for when looking for declarations by text; the runner ranks declarations first. */
const DECLARATION_SEARCH_LIMIT = 100;

const input = z.object(positionArguments);

const output = z.object({
  ...answerStatusShape,
  locations: z.array(locationOutput).describe("The locations found; usually one for a definition."),
  source: answerSourceOutput("text matches that look like declarations"),
});

type Output = z.output<typeof output>;

/** How the answer names what it found: "definition", "type definition", "implementation". */
export function locationsAnswer(
  answer: LocationsAnswer,
  at: PositionAt,
  noun = "definition",
): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const locations = answer.locations.map(locationFrom);
  const target = describeTarget(at, status);
  const text = answerText(
    status,
    locations.length > 0,
    `No ${noun} found for ${target}.`,
    `${counted(locations.length, noun)} of ${target}:`,
    ...locations.map(locationText),
  );
  return { text, structured: { ...status, locations } };
}

/** Kept for the tests and callers of the first version. */
export const definitionAnswer = (answer: LocationsAnswer, at: PositionAt) => locationsAnswer(answer, at);

/** Definitions as text matches (no language server for the file): the whole-word matches ranked as declarations. */
export function textDefinitionsAnswer(
  answer: SearchTextAnswer,
  name: string,
  language: FileLanguage,
): ToolAnswer<Output> {
  const status = textSearchStatus(language, name, answer);
  const locations = answer.matches.filter((match) => match.rank === DECLARATION_RANK).map(textMatchLocation);
  const others = answer.total - locations.length;
  const none =
    others > 0
      ? `No declaration-like text matches of \`${name}\`; it occurs ${counted(others, "other time")} (find_references lists them).`
      : `No text matches of \`${name}\`.`;
  const text = answerText(
    status,
    locations.length > 0,
    none,
    `${counted(locations.length, "declaration-like text match", "declaration-like text matches")} of \`${name}\`:`,
    ...locations.map(locationText),
  );
  return { text, structured: { ...status, locations, source: "text_search" } };
}

/** No language server for the file: declarations of the name found by text, when there is a name. */
async function definitionsByText(
  error: unknown,
  at: PositionAt,
  context: PositionContext,
): Promise<ToolAnswer<Output> | undefined> {
  const searched = await textSearchInstead(error, at, context, { limit: DECLARATION_SEARCH_LIMIT, offset: 0 });
  return searched && textDefinitionsAnswer(searched.answer, searched.name, searched.language);
}

const POINTING =
  "Point at code with file plus line and column (both 1-based; column counts Unicode code points), " +
  "or with file plus symbol (the exact identifier) and optionally line as a hint, which needs no column, " +
  "or with symbol alone (a declaration's name or Class.method: found by name; several are listed to choose from). " +
  "Answers include the language server's state; partial=true means the server was not ready, so retry shortly.";

/** Each tool's title, its RPC, and what its answer calls a location found ("2 definitions of …"). */
const LOCATION_TOOLS = {
  find_definition: { title: "Find definition", rpc: "findDefinition", noun: "definition" },
  find_type_definition: { title: "Find type definition", rpc: "findTypeDefinition", noun: "type definition" },
  find_implementations: { title: "Find implementations", rpc: "findImplementations", noun: "implementation" },
} as const;

type LocationToolName = keyof typeof LOCATION_TOOLS;

/** What each tool finds; its description goes on with POINTING. */
const FINDS: Record<LocationToolName, string> = {
  find_definition:
    "Go to definition: where the identifier at a position is defined, with the code line of each definition. " +
    "For a file no language server reads here, the answer is the name's declaration-like text matches instead (source text_search, partial).",
  find_type_definition:
    "Go to type definition: where the type of the expression or variable at a position is declared (for `const x = new Foo()`, where Foo is), with code lines.",
  find_implementations:
    "Implementations of the interface, abstract class or abstract/interface member at a position: the classes and methods that implement it, with code lines.",
};

function locationsTool(name: LocationToolName): GatewayTool {
  const { title, rpc, noun } = LOCATION_TOOLS[name];
  return positionTool({
    name,
    title,
    description: `${FINDS[name]} ${POINTING}`,
    input,
    output,
    ask: (runner, request, options) => runner[rpc](request, options),
    answer: (answer, at) => {
      const { text, structured } = locationsAnswer(answer, at, noun);
      return { text, structured: { ...structured, source: "language_server" as const } };
    },
    // Only a definition is looked for by text: type definitions and implementations are not in the words.
    ...(name === "find_definition"
      ? {
          fallback: (error: unknown, at: PositionAt, _args: unknown, context: PositionContext) =>
            definitionsByText(error, at, context),
        }
      : {}),
  });
}

export const findDefinitionTool = locationsTool("find_definition");
export const findTypeDefinitionTool = locationsTool("find_type_definition");
export const findImplementationsTool = locationsTool("find_implementations");
