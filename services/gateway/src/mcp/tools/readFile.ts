// read_file: lines of a workspace file, numbered, with the content hash edits check against —
// through the runner, under the same path rules as every tool.
import type { ReadFileAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { fileArgument, oneBased, workspaceArgument } from "../toolSupport/shared.js";

/** Most bytes of file text one answer carries (the text budget leaves room for line numbers). */
const READ_MAX_BYTES = 20_000;

const input = z.object({
  file: fileArgument,
  start_line: oneBased("start_line").optional().describe("First line to read (1-based; default 1)."),
  end_line: oneBased("end_line").optional().describe("Last line to read, inclusive (default: the last line)."),
  workspace: workspaceArgument,
});

const output = z.object({
  file: z.string().describe("The file read, workspace-relative."),
  text: z.string().describe("Lines start_line..end_line, each ending with a line break, without line numbers."),
  start_line: z.number().describe("First line returned (1-based)."),
  end_line: z.number().describe("Last line returned."),
  total_lines: z.number().describe("Lines in the whole file."),
  size: z.number().describe("Bytes on disk."),
  sha256: z
    .string()
    .describe("Hash of the whole file's text: pass it as expected_sha256 in an edit to refuse it if the file changed."),
  truncated: z.boolean().describe("True when the lines asked for did not fit one answer: read on from next_line."),
  next_line: z.number().optional().describe("Where to read on (start_line of the next call) when truncated."),
});

export function readFileAnswer(answer: ReadFileAnswer): ToolAnswer<z.output<typeof output>> {
  const lines = answer.text === "" ? [] : answer.text.replace(/\n$/, "").split("\n");
  const width = String(answer.endLine).length;
  const numbered = lines.map((line, index) => `${String(answer.startLine + index).padStart(width)}│ ${line}`);
  const more = answer.truncated ? `… more lines not shown: read on with start_line ${answer.endLine + 1}.` : undefined;
  const header = `${answer.file}: lines ${answer.startLine}–${answer.endLine} of ${answer.totalLines} (sha256 ${answer.contentSha256.slice(0, 16)}…)`;
  return {
    text: [header, ...numbered, ...(more ? [more] : [])].join("\n"),
    structured: {
      file: answer.file,
      text: answer.text,
      start_line: answer.startLine,
      end_line: answer.endLine,
      total_lines: answer.totalLines,
      size: Number(answer.size),
      sha256: answer.contentSha256,
      truncated: answer.truncated,
      ...(answer.truncated ? { next_line: answer.endLine + 1 } : {}),
    },
  };
}

export const readFileTool = defineTool({
  name: "read_file",
  title: "Read a file",
  description:
    "Lines of a workspace file (all, or start_line..end_line), numbered, with the file's sha256 for edits' expected_sha256. " +
    "Long reads are cut at about 20 000 bytes and say where to read on. Binary and oversized files are refused.",
  input,
  output,
  async run(args, call) {
    if (args.start_line !== undefined && args.end_line !== undefined && args.end_line < args.start_line) {
      throw new GatewayError("INVALID_ARGUMENT", "end_line is before start_line");
    }
    const workspace = await call.workspace(args.workspace);
    const answer = await call.sendForText(workspace, [args.file], (runner, options) =>
      runner.readFile(
        {
          workspace,
          file: args.file,
          startLine: args.start_line ?? 0,
          endLine: args.end_line ?? 0,
          maxBytes: READ_MAX_BYTES,
        },
        options,
      ),
    );
    return readFileAnswer(answer);
  },
});
