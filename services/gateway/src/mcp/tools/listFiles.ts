// list_files: the workspace's files (as git would see them: .gitignore honoured unless asked),
// filtered by globs, sorted by path, paged, with sizes.
import type { ListFilesAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { counted, lines, TEXT_BUDGET } from "../text.js";
import { limitArgument, offsetArgument, workspaceArgument } from "../toolSupport/shared.js";

export const globsArgument = z
  .union([z.string().min(1), z.array(z.string().min(1)).max(20)])
  .optional()
  .describe(
    'Glob(s) the paths must match, workspace-relative, e.g. "src/**/*.ts"; a leading "!" excludes, e.g. ["**/*.ts", "!**/*.test.ts"].',
  );

export function globList(globs: string | string[] | undefined): string[] {
  return globs === undefined ? [] : typeof globs === "string" ? [globs] : globs;
}

const input = z.object({
  glob: globsArgument,
  include_ignored: z
    .boolean()
    .default(false)
    .describe("Also list files .gitignore or .ignore exclude (build output, dependencies); .git is never listed."),
  limit: limitArgument(200, 5000, "files"),
  offset: offsetArgument("Index of the first file to return (paging: next_offset of the previous answer)."),
  workspace: workspaceArgument,
});

const output = z.object({
  files: z
    .array(
      z.object({
        file: z.string().describe("Workspace-relative POSIX path."),
        size: z.number().describe("Bytes on disk."),
      }),
    )
    .describe("Sorted by path (code-unit order)."),
  total: z.number().describe("Files matching, before paging."),
  total_at_least: z.boolean().describe("The listing stopped at its cap (100 000 files): total is a lower bound."),
  next_offset: z.number().optional().describe("offset of the next page, when there is one."),
  partial: z.boolean().describe("True when total is a lower bound or some folders could not be read."),
  note: z.string().optional().describe("Why the listing is partial: the cap reached, folders that could not be read."),
});

/** Characters of listed items one text answer shows: the text budget less room for header and notes. */
export const LISTED_ROOM = TEXT_BUDGET - 2_000;

/** How many of `lines` fit in `room` characters (each with its line break); at least one. */
export function linesThatFit(lines: readonly string[], room: number): number {
  let used = 0;
  for (const [index, line] of lines.entries()) {
    used += line.length + 1;
    if (used > room) return Math.max(index, 1);
  }
  return lines.length;
}

/**
 * The last line of a text answer that shows fewer of the items answered than structuredContent
 * holds (the text budget), with where the text would page on; undefined when all are shown.
 */
export function textCutNote(shown: number, answered: number, what: string, plural = `${what}s`): string | undefined {
  return shown < answered
    ? `… this text shows ${shown} of the ${counted(answered, what, plural)} answered (a text answer is kept under ${TEXT_BUDGET} characters); structuredContent has them all.`
    : undefined;
}

export function listFilesAnswer(answer: ListFilesAnswer, offset: number): ToolAnswer<z.output<typeof output>> {
  const files = answer.files.map((f) => ({ file: f.file, size: Number(f.size) }));
  const end = offset + files.length;
  const next = end < answer.total ? end : undefined;
  const listed = files.map((f) => `  ${f.file}  ${f.size} B`);
  const shown = linesThatFit(listed, LISTED_ROOM);
  // The text pages on from what it shows, so that a caller reading only the text misses nothing.
  const textEnd = offset + shown;
  const textNext = textEnd < answer.total ? textEnd : undefined;
  const total = `${answer.total}${answer.totalAtLeast ? "+" : ""}`;
  const header =
    files.length === 0
      ? answer.total > 0
        ? `No files at offset ${offset}: ${total} match.`
        : "No files match."
      : `${counted(shown, "file")} (${offset + 1}–${textEnd} of ${total})${textNext !== undefined ? `; more with offset ${textNext}` : ""}:`;
  return {
    text: lines(
      header,
      ...listed.slice(0, shown),
      textCutNote(shown, files.length, "file"),
      answer.note ? `Note: ${answer.note}` : undefined,
    ),
    structured: {
      files,
      total: answer.total,
      total_at_least: answer.totalAtLeast,
      ...(next !== undefined ? { next_offset: next } : {}),
      partial: answer.totalAtLeast || answer.note !== "",
      ...(answer.note ? { note: answer.note } : {}),
    },
  };
}

export const listFilesTool = defineTool({
  name: "list_files",
  title: "List files",
  description:
    "The workspace's files, sorted by path, with sizes, filtered by glob(s), paged. Files .gitignore excludes are left out unless include_ignored.",
  input,
  output,
  async run(args, call) {
    const workspace = await call.workspace(args.workspace);
    const answer = await call.sendForText(workspace, [], (runner, options) =>
      runner.listFiles(
        {
          workspace,
          globs: globList(args.glob),
          includeIgnored: args.include_ignored,
          limit: args.limit,
          offset: args.offset,
        },
        options,
      ),
    );
    return listFilesAnswer(answer, args.offset);
  },
});
