// The bodies of declarations found by name (find_symbol include_body). The symbol index keeps only
// where a name is, so a body's extent comes from its file's outline (document symbols: the
// symbol declared at that name, its full range), and its text from read_file; each body at most
// BODY_LINES lines, all of them within one character budget, cut bodies saying where to read on.
import { z } from "zod";
import type { Declaration } from "../../symbols/declarationLookup.js";
import { declaredAt, sameRange } from "../../symbols/outline.js";
import type { WorkspaceTarget } from "../../workspaces.js";
import type { ToolCall } from "../toolCall.js";
import { toGatewayError } from "../toolErrors.js";
import { fetchOutlines, MAX_OUTLINE_FILES, type Outline } from "./outlines.js";

/** Lines of one body shown at most. */
export const BODY_LINES = 200;
/** Characters of all bodies of one answer together (well inside text.ts TEXT_BUDGET, 24 000). */
export const BODIES_BUDGET = 16_000;
/** Bytes one body read asks for at most (the runner cuts at a line boundary). */
const READ_MAX_BYTES = 32_000;

export const bodyOutput = z.object({
  start_line: z.number().int().describe("1-based first line of the declaration (its full extent)."),
  end_line: z.number().int().describe("1-based last line of the declaration."),
  text: z.string().describe("The lines shown, from start_line, each ending with its line break."),
  truncated: z.boolean().describe("True when not every line is shown: note says which lines to read."),
  note: z.string().optional(),
});

export type BodyOutput = z.output<typeof bodyOutput>;

/** A body, or why there is none. */
export type BodyResult = { body: BodyOutput } | { unavailable: string };

/** A body's full extent (1-based lines) and the text read from its start. */
interface ReadBody {
  startLine: number;
  endLine: number;
  text: string;
  /** The server's range is the name alone (pyright's variables): the declaration may go on past it. */
  nameOnly?: boolean;
}

/** Bodies of `declarations`, in their order (at most MAX_OUTLINE_FILES of them fetched; the rest say so). */
export async function fetchBodies(
  call: ToolCall,
  targets: ReadonlyMap<string, WorkspaceTarget>,
  declarations: readonly Declaration[],
): Promise<BodyResult[]> {
  const fetched = declarations.slice(0, MAX_OUTLINE_FILES);
  const outlines = new Map<string, Map<string, Outline>>();
  await Promise.all(
    [...targets].map(async ([workspace, target]) => {
      const files = fetched.filter((found) => found.workspace === workspace).map((found) => found.file);
      if (files.length > 0) outlines.set(workspace, await fetchOutlines(call, target, files));
    }),
  );
  const reads = await Promise.all(
    fetched.map((found) => readBody(call, targets.get(found.workspace)!, found, outlines.get(found.workspace))),
  );
  let budget = BODIES_BUDGET;
  const results = reads.map((read): BodyResult => {
    if ("unavailable" in read) return read;
    const body = fitBody(read, budget);
    budget -= body.text.length;
    return { body };
  });
  const skipped = declarations.length - fetched.length;
  for (let i = 0; i < skipped; i++) {
    results.push({
      unavailable: `bodies are read for the first ${MAX_OUTLINE_FILES} declarations of a page; page with offset`,
    });
  }
  return results;
}

async function readBody(
  call: ToolCall,
  workspace: WorkspaceTarget,
  found: Declaration,
  outlines: ReadonlyMap<string, Outline> | undefined,
): Promise<ReadBody | { unavailable: string }> {
  const { symbol } = found;
  const outline = outlines?.get(found.file);
  if (!outline || "unknown" in outline) return { unavailable: `no body: ${outline?.unknown ?? "no outline"}` };
  const declared = declaredAt(outline.symbols, symbol, symbol.name);
  const range = declared?.symbol.range;
  if (!range?.start || !range.end) {
    return {
      unavailable: `no body: ${symbol.name} is not in the outline of ${found.file} at line ${symbol.line} (the file changed since it was indexed?); read_file from line ${symbol.line}`,
    };
  }
  const startLine = range.start.line;
  // An end at column 1 is the line break before that line: the body ends on the line above.
  const endLine = range.end.column === 1 && range.end.line > startLine ? range.end.line - 1 : range.end.line;
  try {
    const answer = await call.sendForText(workspace, [found.file], (runner, options) =>
      runner.readFile(
        {
          workspace,
          file: found.file,
          startLine,
          endLine: Math.min(endLine, startLine + BODY_LINES - 1),
          maxBytes: READ_MAX_BYTES,
        },
        options,
      ),
    );
    const nameOnly = sameRange(range, declared?.symbol.selectionRange);
    return { startLine, endLine, text: answer.text, ...(nameOnly ? { nameOnly } : {}) };
  } catch (error) {
    const coded = toGatewayError(error);
    if (!coded) throw error;
    return {
      unavailable: `no body: lines ${startLine}-${endLine} could not be read (${coded.code}: ${coded.message})`,
    };
  }
}

/** The body's lines that fit `budget` characters (whole lines); cut bodies say which lines to read. */
export function fitBody(read: ReadBody, budget: number): BodyOutput {
  const { startLine, endLine } = read;
  const lines = read.text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const wanted = Math.min(lines.length, endLine - startLine + 1);
  let shown = 0;
  let size = 0;
  while (shown < wanted && size + lines[shown]!.length <= budget) size += lines[shown++]!.length;
  const text = lines.slice(0, shown).join("");
  const body: BodyOutput = { start_line: startLine, end_line: endLine, text, truncated: false };
  const next = startLine + shown;
  if (next <= endLine) {
    body.truncated = true;
    body.note = `body truncated, read_file lines ${next}–${endLine}`;
  } else if (read.nameOnly) {
    // `SPINNERS = {` of 460 lines: the server's range ends with the name, the value is not in it.
    body.truncated = true;
    body.note = `the language server gives only the name's range: the declaration may go on past line ${endLine}; read_file from line ${startLine}`;
  }
  return body;
}
