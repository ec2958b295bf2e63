// find_symbol: declarations by name or name path (Class.method), from the symbol index
// search_symbols reads (asked live where a workspace has none yet), exact names first, then
// ignoring case, then names starting so; optionally with each declaration's body.
import { SymbolKind, symbolKindName } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import {
  type Declaration,
  type DeclarationFilters,
  type DeclarationMatches,
  parseNameQuery,
} from "../../symbols/declarationLookup.js";
import { compilePathGlob, MAX_PATH_GLOB_LENGTH, PathGlobError } from "../../symbols/pathGlob.js";
import { MATCH } from "../../symbols/symbolMatch.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { answerText, counted, pastTheEnd } from "../text.js";
import { type BodyResult, bodyOutput, fetchBodies } from "../toolSupport/declarationBodies.js";
import { declarationLine } from "../toolSupport/namedPosition.js";
import {
  type AnswerStatusOutput,
  answerStatusShape,
  limitArgument,
  offsetArgument,
  workspaceArgument,
} from "../toolSupport/shared.js";
import { lookupDeclarations } from "../toolSupport/symbolLookup.js";
import { symbolOutput } from "./searchSymbols.js";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 200;

/** Kind names as the answers (and search_symbols) spell them: class, function, enum_member, … */
export const KIND_NAMES: readonly string[] = Object.values(SymbolKind)
  .filter((value): value is SymbolKind => typeof value === "number" && value !== SymbolKind.UNSPECIFIED)
  .map(symbolKindName);

const kindName = z.string().min(1).max(32);

const input = z.object({
  name: z
    .string({ error: "name must be a string" })
    .min(1, { error: "name must not be empty; give a declaration's name, e.g. parseConfig or Greeter.greet" })
    .max(256, { error: "name is longer than 256 characters" })
    .describe(
      "A declaration's name (parseConfig), or a name path: its container, a dot, then its name (Greeter.greet; ns.Greeter.greet). Names starting so are listed after exact ones.",
    ),
  kind: z
    .union([kindName, z.array(kindName).min(1).max(KIND_NAMES.length)], {
      error: 'kind must be a kind name or a list of them, e.g. "class" or ["function", "method"]',
    })
    .optional()
    .describe(
      'Only these kinds, e.g. "class" or ["function", "method"] (names as in the answers, as search_symbols takes them).',
    ),
  file: z
    .string()
    .min(1)
    .max(MAX_PATH_GLOB_LENGTH, { error: `file is longer than ${MAX_PATH_GLOB_LENGTH} characters` })
    .optional()
    .describe(
      "Only declarations in this file or folder (src/greeter.ts, src/), or in files matching this glob (src/**/*.ts).",
    ),
  workspace: workspaceArgument.describe("Only this workspace; omit it to search every workspace you may use."),
  include_body: z
    .boolean({ error: "include_body must be true or false" })
    .default(false)
    .describe(
      "Also return each declaration's source (its full extent, at most 200 lines each, for the first 20 of the page; a cut body says which lines to read with read_file).",
    ),
  limit: limitArgument(DEFAULT_LIMIT, MAX_LIMIT, "declarations"),
  offset: offsetArgument(
    "Index of the first declaration to return (0-based), from next_offset of the previous answer.",
  ),
});

type Input = z.output<typeof input>;

const MATCH_NAMES: Record<number, string> = {
  [MATCH.exact]: "exact",
  [MATCH.exactIgnoringCase]: "exact_ignoring_case",
  [MATCH.prefix]: "prefix",
  [MATCH.prefixIgnoringCase]: "prefix_ignoring_case",
};

const foundOutput = symbolOutput.extend({
  match: z
    .enum(["exact", "exact_ignoring_case", "prefix", "prefix_ignoring_case"])
    .describe("How the name matched: exact, the same ignoring case, or starting with it."),
  body: bodyOutput.optional().describe("With include_body: the declaration's source."),
  body_note: z.string().optional().describe("With include_body: why there is no body."),
});

type SymbolOutput = z.output<typeof foundOutput>;

/** find_symbol's structuredContent (exported for its tests). */
export const findSymbolOutput = z.object({
  ...answerStatusShape,
  name: z.string(),
  symbols: z
    .array(foundOutput)
    .describe("Declarations, ranked: exact, ignoring case, prefix; exported first; then kind and path depth."),
  total: z.number().int().describe("Declarations matching before paging."),
  truncated: z.boolean().describe("True when more declarations follow this page (next_offset says where)."),
  offset: z.number().int(),
  next_offset: z.number().int().optional().describe("Pass as offset for the next page; absent on the last page."),
});

type Output = z.output<typeof findSymbolOutput>;

export interface FindSymbolParts {
  name: string;
  status: AnswerStatusOutput;
  matches: DeclarationMatches;
  /** The page shown: ranked declarations from offset. */
  page: readonly Declaration[];
  offset: number;
  /** Bodies of the page's declarations, in order (include_body). */
  bodies?: readonly BodyResult[];
  /** Name the workspace in each line (several searched). */
  showWorkspace: boolean;
  /** What the filters were, for the text ("class in src/"). */
  filtersText: string;
}

export function findSymbolAnswer(parts: FindSymbolParts): ToolAnswer<Output> {
  const { name, status, matches, page, offset } = parts;
  const symbols = page.map((found, i) => symbolOf(found, parts.bodies?.[i]));
  // A page never shows more than exist; one past the end shows none and leaves the total as it is.
  const total = symbols.length > 0 ? Math.max(matches.total, offset + symbols.length) : matches.total;
  const pastEnd = symbols.length === 0 && offset > 0 && offset >= total;
  const next = offset + symbols.length < total ? offset + symbols.length : undefined;
  const shown = pastEnd
    ? `; ${pastTheEnd(offset)}`
    : total > symbols.length
      ? `; showing ${offset + 1}-${offset + symbols.length}${next === undefined ? "" : ` (offset: ${next} for more)`}`
      : "";
  const text = answerText(
    status,
    symbols.length > 0 || offset > 0,
    `No declaration named "${name}"${parts.filtersText}. search_symbols matches more loosely (camel case, substring, fuzzy); search_text finds it as text.`,
    `${counted(total, "declaration")} named "${name}"${matchCounts(matches)}${parts.filtersText}${shown}${pastEnd ? "" : ":"}`,
    ...symbols.flatMap((symbol) => symbolLines(symbol, parts.showWorkspace)),
  );
  const structured: Output = {
    ...status,
    name,
    symbols,
    total,
    truncated: next !== undefined,
    offset,
    ...(next === undefined ? {} : { next_offset: next }),
  };
  return { text, structured };
}

/**
 * How the declarations match, unless all have the name exactly: `or starting so (2 exactly, 1
 * starting so)`, ` ignoring case (1 exactly, 458 ignoring case)` — "Console" must not count its
 * 458 `console` variables as named exactly so.
 */
export function matchCounts(matches: Pick<DeclarationMatches, "exactCase" | "exact" | "total">): string {
  const exact = matches.exactCase;
  if (exact === matches.total) return "";
  const ignoringCase = matches.exact - exact;
  const prefixed = matches.total - matches.exact;
  const counts = [
    `${exact} exactly`,
    ...(ignoringCase > 0 ? [`${ignoringCase} ignoring case`] : []),
    ...(prefixed > 0 ? [`${prefixed} starting so`] : []),
  ];
  return `${prefixed > 0 ? " or starting so" : " ignoring case"} (${counts.join(", ")})`;
}

function symbolOf(found: Declaration, body: BodyResult | undefined): SymbolOutput {
  const { symbol } = found;
  const out: SymbolOutput = {
    workspace: found.workspace,
    name: symbol.name,
    kind: symbol.kind,
    source: found.origin,
    match: MATCH_NAMES[found.match] as SymbolOutput["match"],
    location: {
      file: found.file,
      line: symbol.line,
      column: symbol.column,
      end_line: symbol.endLine,
      end_column: symbol.endColumn,
      snippet: symbol.snippet,
    },
  };
  if (symbol.container) out.container = symbol.container;
  if (found.origin !== "live") out.exported = symbol.exported;
  if (found.language) out.language = found.language;
  if (body && "body" in body) out.body = body.body;
  if (body && "unavailable" in body) out.body_note = body.unavailable;
  return out;
}

function symbolLines(symbol: SymbolOutput, showWorkspace: boolean): string[] {
  const { name, kind, container, location } = symbol;
  const declared = { name, kind, ...(container ? { container } : {}), ...location };
  const head = declarationLine(declared, showWorkspace ? symbol.workspace : undefined);
  const { body } = symbol;
  if (body) {
    return [
      `${head}, lines ${body.start_line}-${body.end_line}:`,
      "```",
      body.text.replace(/\n$/, ""),
      "```",
      ...(body.note ? [body.note] : []),
    ];
  }
  const snippet = symbol.location.snippet.trim();
  return [head, ...(snippet ? [`  ${snippet}`] : []), ...(symbol.body_note ? [`  (${symbol.body_note})`] : [])];
}

/** The kinds asked for, as the answers name them; unknown names are refused, naming the known ones. */
export function kindsOf(kind: string | string[] | undefined): ReadonlySet<string> | undefined {
  if (kind === undefined) return undefined;
  const kinds = (Array.isArray(kind) ? kind : [kind]).map((one) => one.trim().toLowerCase().replaceAll(" ", "_"));
  const unknown = kinds.find((one) => !KIND_NAMES.includes(one));
  if (unknown !== undefined) {
    throw new GatewayError(
      "INVALID_ARGUMENT",
      `unknown kind '${unknown.slice(0, 32)}'; kinds: ${KIND_NAMES.join(", ")}`,
    );
  }
  return new Set(kinds);
}

/** The file filter: a glob when it has glob characters, else a file or a folder (and what is below it). */
export function fileFilterOf(file: string | undefined): ((path: string) => boolean) | undefined {
  if (file === undefined) return undefined;
  if (/[*?[{]/.test(file) || file.startsWith("!")) {
    try {
      // Linear-time matching (RE2): a caller's glob cannot stall the event loop (pathGlob.ts).
      return compilePathGlob(file);
    } catch (error) {
      if (!(error instanceof PathGlobError)) throw error;
      throw new GatewayError("INVALID_ARGUMENT", `file '${file.slice(0, 100)}' ${error.message}`);
    }
  }
  const path = file.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  if (path === "" || path === ".") return undefined;
  return (candidate) => candidate === path || candidate.startsWith(`${path}/`);
}

function filtersTextOf(args: Input, kinds: ReadonlySet<string> | undefined): string {
  const parts = [
    kinds ? ` of kind ${[...kinds].join(" or ")}` : "",
    args.file ? ` in ${args.file}` : "",
    args.workspace ? ` in workspace ${args.workspace}` : "",
  ];
  return parts.join("");
}

export const findSymbolTool = defineTool({
  name: "find_symbol",
  title: "Find symbol by name",
  description:
    "Find declarations by name: a name (parseConfig) or a name path with its container (Greeter.greet), exact names first, then the same ignoring case, then names starting so. " +
    "Answers from the symbol index (no language server has to be running); a workspace without an index yet is asked live (partial=true says so). " +
    "Filter by kind (class, function, method, interface, variable, …), file (a file, a folder, or a glob) and workspace. " +
    "include_body: true also returns each declaration's source (at most 200 lines each; a cut body says which lines to read with read_file). " +
    "Each result has file, 1-based line and column: pass them (or file with symbol) to the position tools.",
  input,
  output: findSymbolOutput,
  async run(args, call) {
    const query = parseNameQuery(args.name);
    const kinds = kindsOf(args.kind);
    const file = fileFilterOf(args.file);
    const filters: DeclarationFilters = { ...(kinds ? { kinds } : {}), ...(file ? { file } : {}) };
    const targets: WorkspaceTarget[] = args.workspace
      ? [await call.workspace(args.workspace)]
      : await call.visibleWorkspaces();
    const lookup = await lookupDeclarations(call, targets, query, filters);
    const page = lookup.matches.page(args.offset, args.limit);
    const byName = new Map(targets.map((target) => [target.workspace, target]));
    const bodies = args.include_body && page.length > 0 ? await fetchBodies(call, byName, page) : undefined;
    return findSymbolAnswer({
      name: args.name,
      status: lookup.status,
      matches: lookup.matches,
      page,
      offset: args.offset,
      ...(bodies ? { bodies } : {}),
      showWorkspace: targets.length > 1,
      filtersText: filtersTextOf(args, kinds),
    });
  },
});
