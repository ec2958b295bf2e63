// list_files: the workspace's files (as git would see them: .gitignore honoured unless asked),
// filtered by globs, sorted by path, paged, with sizes.
import type { ListFilesAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { counted } from "../text.js";
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
  files: z.array(z.object({ file: z.string(), size: z.number().describe("Bytes.") })).describe("Sorted by path."),
  total: z.number().describe("Files matching, before paging."),
  total_at_least: z.boolean().describe("The listing stopped at its cap (100 000 files): total is a lower bound."),
  next_offset: z.number().optional().describe("offset of the next page, when there is one."),
  partial: z.boolean().describe("True when total is a lower bound or some folders could not be read."),
  note: z.string().optional(),
});

export function listFilesAnswer(answer: ListFilesAnswer, offset: number): ToolAnswer<z.output<typeof output>> {
  const files = answer.files.map((f) => ({ file: f.file, size: Number(f.size) }));
  const end = offset + files.length;
  const next = end < answer.total ? end : undefined;
  const total = `${answer.total}${answer.totalAtLeast ? "+" : ""}`;
  const header =
    files.length === 0
      ? answer.total > 0
        ? `No files at offset ${offset}: ${total} match.`
        : "No files match."
      : `${counted(files.length, "file")} (${offset + 1}–${end} of ${total})${next !== undefined ? `; more with offset ${next}` : ""}:`;
  return {
    text: [
      header,
      ...files.map((f) => `  ${f.file}  ${f.size} B`),
      ...(answer.note ? [`Note: ${answer.note}`] : []),
    ].join("\n"),
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
