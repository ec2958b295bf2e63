// Pieces every tool shares: argument schemas (workspace, file, position), the answer-status and
// location output schemas, and their conversion from runner answers.
import {
  type AnswerStatus,
  type Location,
  type Range,
  SERVER_STATES,
  ServerState,
  type ServerStateName,
  type SymbolKind,
  symbolKindName,
} from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import type { RunnerPart } from "../runnerPart.js";

/** Upper bound for 1-based line and column numbers; far beyond any real file, well inside uint32. */
const MAX_POSITION = 10_000_000;

// ---------------------------------------------------------------------------------------------
// Arguments

// Not checked against the id pattern here: a malformed, forged or foreign workspace name is
// answered exactly like a missing one (NOT_FOUND) by the workspace resolver.
export const workspaceArgument = z
  .string({ error: "workspace must be a string, e.g. 'default'" })
  .min(1, { error: "workspace must not be empty; omit it to use your only workspace" })
  .max(256, { error: "workspace is longer than 256 characters" })
  .optional()
  .describe(
    "Workspace id. Omit it when you have exactly one workspace (always so on a single machine); workspace_status without arguments lists yours.",
  );

export const fileArgument = z
  .string()
  .min(1, { error: "file must not be empty; give a workspace-relative path such as src/index.ts" })
  .max(4096, { error: "file is longer than 4096 characters" })
  .describe("Workspace-relative POSIX path of the file, e.g. src/index.ts.");

/** A 1-based line, column or count argument, with errors that say so. */
export const oneBased = (name: string) =>
  z
    .number({ error: `${name} must be a number` })
    .int({ error: `${name} must be a whole number` })
    .min(1, { error: `${name} is 1-based: the first ${name} is 1` })
    .max(MAX_POSITION, { error: `${name} is too large` });

const lineNumber = oneBased;

/** A `limit` argument: how many results at most (default `fallback`, at most `max`). */
export function limitArgument(fallback: number, max: number, what: string) {
  return z
    .number({ error: "limit must be a number" })
    .int({ error: "limit must be a whole number" })
    .min(1, { error: "limit must be at least 1" })
    .max(max, { error: `limit must be at most ${max}` })
    .default(fallback)
    .describe(`Most ${what} to return (default ${fallback}, at most ${max}).`);
}

/** Largest paging offset accepted (the runner's field is 32-bit; no answer has a million items). */
const MAX_OFFSET = 1_000_000;

/** `offset` of a paged answer: 0-based index of the first item, from next_offset of the previous page. */
export function offsetArgument(description: string, max = MAX_OFFSET, tooLarge = `offset must be at most ${max}`) {
  return z
    .number({ error: "offset must be a number" })
    .int({ error: "offset must be a whole number" })
    .min(0, { error: "offset must be 0 or more" })
    .max(max, { error: tooLarge })
    .default(0)
    .describe(description);
}

/** A position as docs/tools.md defines it: line + column, or symbol with an optional line hint. */
export const positionArguments = {
  workspace: workspaceArgument,
  file: fileArgument,
  line: lineNumber("line")
    .optional()
    .describe(
      "1-based line number. Required with column. With symbol it is an optional hint: the symbol is looked for on this line first, then on the nearest lines around it.",
    ),
  column: lineNumber("column")
    .optional()
    .describe(
      "1-based column, counting Unicode code points of the line (not bytes, not UTF-16 units). With symbol too: used when the symbol stands at this column of line, otherwise the symbol is looked for near line (the answer says which).",
    ),
  symbol: z
    .string()
    .min(1, { error: "symbol must not be empty" })
    .max(256, { error: "symbol is longer than 256 characters" })
    .optional()
    .describe(
      "Exact identifier to point at instead of a column, e.g. parseConfig. Matched on word boundaries; the answer reports where it resolved (resolved.line, resolved.column).",
    ),
  occurrence: lineNumber("occurrence")
    .optional()
    .describe("With symbol: which match on the resolved line to use, 1-based (default 1)."),
};

export type PositionArguments = z.output<z.ZodObject<typeof positionArguments>>;

/**
 * What the tools built by positionTool take instead of positionArguments' file and symbol: file
 * may be left out when symbol names a declaration (looked up by name, namedPosition.ts).
 */
export const namedPositionArguments = {
  file: fileArgument
    .optional()
    .describe(
      "Workspace-relative POSIX path of the file, e.g. src/index.ts. Omit it and give symbol alone to point at a declaration by name (looked up as find_symbol does).",
    ),
  symbol: positionArguments.symbol.describe(
    "Exact identifier to point at instead of a column, e.g. parseConfig. Matched on word boundaries; the answer reports where it resolved (resolved.line, resolved.column). Without file: a declaration's name or a Class.method name path, looked up by name; when several declarations have it, they are listed (candidates) for you to choose with file and line.",
  ),
};

/** Position arguments whose file may be missing (a name alone). */
export type NamedPositionArguments = Omit<PositionArguments, "file"> & { file?: string | undefined };

/** The runner's PositionSpec (runner.proto), as a plain init object. */
export interface PositionAt {
  file: string;
  target:
    | { case: "position"; value: { line: number; column: number } }
    | { case: "symbol"; value: { name: string; lineHint: number; occurrence: number; columnHint: number } };
}

/** Where a position tool points: a position in a file, or a declaration to find by name (symbol without file). */
export type PositionOrName = { case: "at"; at: PositionAt } | { case: "name"; name: string };

const invalid = (message: string) => new GatewayError("INVALID_ARGUMENT", message);

/** Checks the position fields (rules a schema cannot express): a position in a file, or a name alone. */
export function positionOrName(args: NamedPositionArguments): PositionOrName {
  const { file, line, column, symbol, occurrence } = args;
  if (file !== undefined) return { case: "at", at: positionFrom({ ...args, file }) };
  if (symbol === undefined) {
    throw invalid(
      "say where: give file with line and column (1-based, column in code points), or symbol (an exact identifier; with file, line is an optional hint; without file, a declaration's name or Class.method)",
    );
  }
  if (line !== undefined || column !== undefined || occurrence !== undefined) {
    throw invalid(
      "line, column and occurrence need file: give file too, or give symbol alone to find its declaration by name",
    );
  }
  return { case: "name", name: symbol };
}

/** Checks the rules between position fields that a schema cannot express, and builds the spec. */
export function positionFrom(args: PositionArguments): PositionAt {
  const { file, line, column, symbol, occurrence } = args;
  if (column !== undefined && symbol !== undefined) {
    if (line === undefined) throw invalid("column needs line: give line too, or drop column and keep symbol");
    if (occurrence !== undefined) throw invalid("give column or occurrence to pick a match on the line, not both");
    // Both given (agents often do): the runner uses the column when the symbol is there.
    return {
      file,
      target: { case: "symbol", value: { name: symbol, lineHint: line, occurrence: 0, columnHint: column } },
    };
  }
  if (column !== undefined) {
    if (line === undefined) throw invalid("column needs line: give both (1-based), or give symbol instead");
    if (occurrence !== undefined) throw invalid("occurrence only applies with symbol; drop it when giving column");
    return { file, target: { case: "position", value: { line, column } } };
  }
  if (symbol !== undefined) {
    // 0 means "not given" on the wire (runner.proto SymbolTarget).
    return {
      file,
      target: {
        case: "symbol",
        value: { name: symbol, lineHint: line ?? 0, occurrence: occurrence ?? 0, columnHint: 0 },
      },
    };
  }
  throw invalid(
    "say where: give line and column (1-based, column in code points), or symbol (an exact identifier, with line as an optional hint)",
  );
}

// ---------------------------------------------------------------------------------------------
// Output: answer status

const positionOutput = z.object({ line: z.number().int(), column: z.number().int() });

/** Spread into every tool's output schema: the language server's state behind the answer. */
export const answerStatusShape = {
  state: z.enum(SERVER_STATES).describe("Language server state when it answered."),
  partial: z.boolean().describe("True when the answer may be incomplete (server not ready); retry later for more."),
  note: z.string().optional().describe("Why the answer is partial, when it is."),
  language: z.string().describe("Language id, e.g. typescript."),
  server: z.string().describe("Language server name and version."),
  resolved: positionOutput.optional().describe("Where a symbol argument resolved to (1-based line and column)."),
  skipped: z
    .array(z.object({ file: z.string(), reason: z.string() }))
    .optional()
    .describe("Files passed over in whole-workspace work (binary, too large, their server failing), with why."),
};

export type AnswerStatusOutput = z.output<z.ZodObject<typeof answerStatusShape>>;

const STATE_NAMES: Record<ServerState, ServerStateName> = {
  [ServerState.STARTING]: "starting",
  [ServerState.INDEXING]: "indexing",
  [ServerState.READY]: "ready",
  [ServerState.DEGRADED]: "degraded",
  [ServerState.FAILED]: "failed",
  // A runner that does not report a state is not claimed ready.
  [ServerState.UNSPECIFIED]: "degraded",
};

/** The tool-contract name of a runner's server state (unknown states are not claimed ready). */
export function stateName(state: ServerState | undefined): ServerStateName {
  return STATE_NAMES[state ?? ServerState.UNSPECIFIED] ?? "degraded";
}

export function statusFrom(status: AnswerStatus | undefined): AnswerStatusOutput {
  const output: AnswerStatusOutput = {
    state: stateName(status?.state),
    partial: status?.partial ?? false,
    language: status?.language ?? "",
    server: status?.server ?? "",
  };
  if (status?.note) output.note = status.note;
  if (status?.resolved) output.resolved = { line: status.resolved.line, column: status.resolved.column };
  if (status?.skipped.length) output.skipped = status.skipped.map(({ file, reason }) => ({ file, reason }));
  return output;
}

// ---------------------------------------------------------------------------------------------
// Output: ranges and locations

export const rangeShape = {
  line: z.number().int().describe("1-based start line."),
  column: z.number().int().describe("1-based start column (Unicode code points)."),
  end_line: z.number().int().describe("1-based end line."),
  end_column: z.number().int().describe("1-based end column, exclusive."),
};

export type RangeOutput = z.output<z.ZodObject<typeof rangeShape>>;

export const locationOutput = z.object({
  file: z.string().describe('Workspace-relative path; for an external library file "node_modules/…" or a system path.'),
  ...rangeShape,
  snippet: z.string().describe("The source line at the start of the range."),
  external: z
    .boolean()
    .optional()
    .describe("True for a library file outside the workspace (the runtime's or the system's): read-only."),
});

export type LocationOutput = z.output<typeof locationOutput>;

export function rangeFrom(range: Range | undefined): RangeOutput {
  // An absent range means "the whole file": point at its start.
  const start = range?.start ?? { line: 1, column: 1 };
  const end = range?.end ?? start;
  return { line: start.line, column: start.column, end_line: end.line, end_column: end.column };
}

export function locationFrom(
  location: Pick<Location, "file" | "range" | "snippet"> & { external?: boolean },
): LocationOutput {
  const output: LocationOutput = { file: location.file, ...rangeFrom(location.range), snippet: location.snippet };
  if (location.external) output.external = true;
  return output;
}

/** A symbol by name and kind, with where it is declared. */
export interface DeclaredSymbolOutput {
  name: string;
  kind: string;
  location: LocationOutput;
}

/** Name, kind and declaration of a symbol a runner found (workspace symbols, hierarchy nodes). */
export function declaredSymbolFrom(symbol: {
  name: string;
  kind: SymbolKind;
  location?: Location | undefined;
}): DeclaredSymbolOutput {
  return {
    name: symbol.name,
    kind: symbolKindName(symbol.kind),
    location: locationFrom(symbol.location ?? { file: "", snippet: "" }),
  };
}

// ---------------------------------------------------------------------------------------------
// Workspace-wide answers from several language servers (one per language's runner)

/** Least ready first: the merged answer reports the state that limits it most. */
const READINESS: Record<ServerStateName, number> = { failed: 0, degraded: 1, starting: 2, indexing: 3, ready: 4 };

/**
 * One status for answers merged from several servers: the least ready state, partial when any
 * part is partial or a part is missing (`missing` says which and why).
 */
export function mergeStatuses(
  statuses: readonly AnswerStatusOutput[],
  missing: readonly string[] = [],
): AnswerStatusOutput {
  const distinct = (values: string[]) => [...new Set(values.filter((value) => value !== ""))].join(", ");
  if (statuses.length === 0) {
    const empty: AnswerStatusOutput = { state: "degraded", partial: true, language: "", server: "" };
    if (missing.length > 0) empty.note = missing.join("; ");
    return empty;
  }
  const worst = statuses.reduce((a, b) => (READINESS[b.state] < READINESS[a.state] ? b : a));
  // Each reason once: two answers of one server (a workspace asked for two languages' files, both
  // served by one runner) carry the same note.
  const notes = [
    ...new Set([...statuses.map((status) => status.note ?? ""), ...missing].flatMap((note) => note.split("; "))),
  ].filter((note) => note !== "");
  const merged: AnswerStatusOutput = {
    state: worst.state,
    partial: statuses.some((status) => status.partial) || missing.length > 0,
    language: distinct(statuses.map((status) => status.language)),
    server: distinct(statuses.map((status) => status.server)),
  };
  if (notes.length > 0) merged.note = notes.join("; ");
  const skipped = statuses.flatMap((status) => status.skipped ?? []);
  if (skipped.length > 0) merged.skipped = skipped;
  return merged;
}

/** The status of answers from one or several runners: the runner's own when it is the only one. */
export function statusOfAnswers(
  answers: ReadonlyArray<{ status?: AnswerStatus }>,
  missing: readonly string[] = [],
): AnswerStatusOutput {
  return answers.length === 1 && missing.length === 0
    ? statusFrom(answers[0]!.status)
    : mergeStatuses(
        answers.map((answer) => statusFrom(answer.status)),
        missing,
      );
}

/** Answers of a fan-out (sendToWorkspace, sendForFiles): all failed → the first error is thrown; else answers + notes. */
export function collectParts<T>(parts: ReadonlyArray<RunnerPart<T>>): {
  answers: T[];
  missing: string[];
} {
  const answers = parts.filter((part) => part.answer !== undefined).map((part) => part.answer as T);
  const failed = parts.filter((part) => part.error);
  if (answers.length === 0 && failed.length > 0) throw failed[0]!.error;
  const missing = failed.map(
    (part) =>
      `${part.languages.filter((l) => l).join(", ") || "some files"} not answered (${part.error!.code}: ${part.error!.message})`,
  );
  return { answers, missing };
}
