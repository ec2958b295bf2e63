// A position given by symbol without file: the name (or Class.method) is looked up as find_symbol
// looks it up; one declaration gives the file and a line hint, several are listed for the caller
// to choose from (a normal answer, not an error), none is NOT_FOUND.
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { type Declaration, type NameResolution, parseNameQuery, resolveName } from "../../symbols/declarationLookup.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import { counted, lines } from "../text.js";
import type { ToolCall } from "../toolCall.js";
import type { AnswerStatusOutput, PositionAt } from "./shared.js";
import { type DeclarationLookup, lookupDeclarations } from "./symbolLookup.js";

/** Candidates listed when a name is ambiguous, at most. */
const MAX_CANDIDATES = 20;

const declarationOutput = z.object({
  name: z.string(),
  kind: z.string().describe("Symbol kind in lower case, e.g. class, method."),
  container: z.string().optional().describe("The enclosing declaration, e.g. the class of a method."),
  file: z.string(),
  line: z.number().int().describe("1-based line of the name."),
  column: z.number().int().describe("1-based column of the name (Unicode code points)."),
});

export type DeclarationOutput = z.output<typeof declarationOutput>;

/** Spread into every position tool's output schema. */
export const namedPositionShape = {
  declaration: declarationOutput
    .optional()
    .describe("When symbol was given without file: the one declaration of that name, whose file was asked."),
  candidates: z
    .array(declarationOutput)
    .optional()
    .describe(
      "When symbol was given without file and names several declarations: them, ranked (nothing else was asked); call again with file (and line) of one.",
    ),
};

export type NamedPosition =
  | { outcome: "resolved"; at: PositionAt; declaration: DeclarationOutput; preface: string }
  | { outcome: "ambiguous"; status: AnswerStatusOutput; candidates: DeclarationOutput[]; text: string };

/** Looks `name` up among the workspace's declarations. Throws NOT_FOUND when it names none. */
export async function resolveNamedPosition(
  call: ToolCall,
  workspace: WorkspaceTarget,
  name: string,
): Promise<NamedPosition> {
  const lookup = await lookupDeclarations(call, [workspace], parseNameQuery(name), {});
  return namedPosition(name, workspace.workspace, resolveName(lookup.matches), lookup);
}

/** The outcome of a lookup as a position, a list of candidates, or the NOT_FOUND error. */
export function namedPosition(
  name: string,
  workspace: string,
  resolution: NameResolution,
  lookup: Pick<DeclarationLookup, "status" | "settling">,
): NamedPosition {
  const { status } = lookup;
  if (resolution.outcome === "none") throw notFound(name, workspace, resolution.similar, lookup);
  if (resolution.outcome === "ambiguous") {
    const { candidates } = resolution;
    const shown = candidates.slice(0, MAX_CANDIDATES).map(declarationOf);
    const more = candidates.length - shown.length;
    const text = lines(
      `\`${name}\` names ${counted(candidates.length, "declaration")}; ambiguous: pass file (and line) to choose:`,
      ...shown.map((declaration) => declarationLine(declaration)),
      more > 0 ? `… and ${more} more` : undefined,
      status.partial && status.note ? `(the lookup may be incomplete: ${status.note})` : undefined,
    );
    const note = `ambiguous: ${counted(candidates.length, "declaration")} named ${name}; pass file (and line) to choose`;
    return {
      outcome: "ambiguous",
      status: { ...status, note: status.note ? `${note}; ${status.note}` : note },
      candidates: shown,
      text,
    };
  }
  const { declaration: found, passedOver } = resolution;
  const declaration = declarationOf(found);
  const at: PositionAt = {
    file: found.file,
    // The declaration's line as the hint: the runner finds the name there (the first match on it).
    target: {
      case: "symbol",
      value: { name: found.symbol.name, lineHint: found.symbol.line, occurrence: 0, columnHint: 0 },
    },
  };
  const others =
    passedOver.length > 0
      ? ` ${counted(passedOver.length, "other declaration")} of that name, of other kinds, passed over (${passedOver
          .slice(0, 3)
          .map((other) => declarationLine(declarationOf(other)))
          .join(
            "; ",
          )}${passedOver.length > 3 ? `; … and ${passedOver.length - 3} more: find_symbol lists them` : ""}); pass file (and line) to ask about one of them.`
      : "";
  const preface = `Found \`${name}\` by name: ${declarationLine(declaration)}.${others}`;
  return { outcome: "resolved", at, declaration, preface };
}

function notFound(
  name: string,
  workspace: string,
  similar: readonly Declaration[],
  { status, settling }: Pick<DeclarationLookup, "status" | "settling">,
): GatewayError {
  const names = [...new Set(similar.map((declaration) => qualifiedName(declaration)))];
  const alike = names.length > 0 ? ` (names starting so: ${names.join(", ")})` : "";
  const incomplete =
    status.partial && status.note
      ? `; the lookup is not complete (${status.note})${settling ? ", so retry shortly" : ""}`
      : "";
  // Not found yet, while a server or index is still filling in: a program reading the code retries.
  return new GatewayError(
    status.partial && settling ? "SERVER_STARTING" : "NOT_FOUND",
    `no declaration named '${name}' in workspace '${workspace}'${alike}${incomplete}; check the spelling, give file with symbol to point at it in a file, or use search_text to find it as text`,
  );
}

export function declarationOf(declaration: Declaration): DeclarationOutput {
  const { symbol } = declaration;
  const out: DeclarationOutput = {
    name: symbol.name,
    kind: symbol.kind,
    file: declaration.file,
    line: symbol.line,
    column: symbol.column,
  };
  if (symbol.container) out.container = symbol.container;
  return out;
}

/** "method greet (in Greeter)  src/greeter.ts:12:3", the file after `workspace:` when given. */
export function declarationLine(declaration: DeclarationOutput, workspace?: string): string {
  const { kind, name, container, file, line, column } = declaration;
  const where = `${workspace ? `${workspace}:` : ""}${file}:${line}:${column}`;
  return `${kind.replaceAll("_", " ")} ${name}${container ? ` (in ${container})` : ""}  ${where}`;
}

function qualifiedName(declaration: Declaration): string {
  const { symbol } = declaration;
  return symbol.container ? `${symbol.container}.${symbol.name}` : symbol.name;
}
