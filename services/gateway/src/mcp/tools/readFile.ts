// read_file: lines of a workspace file, numbered, with the content hash edits check against —
// through the runner, under the same path rules as every tool.
import type { ReadFileAnswer } from "@lspmesh/proto";
import { z } from "zod";
import { GatewayError } from "../../errors.js";
import { defineTool, type ToolAnswer } from "../defineTool.js";
import { TEXT_BUDGET } from "../text.js";
import { fileArgument, oneBased, workspaceArgument } from "../toolSupport/shared.js";
import { linesThatFit } from "./listFiles.js";

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
    .describe(
      "SHA-256 (hex) of the whole file's text: pass it as expected_sha256 in an edit to refuse it if the file changed.",
    ),
  truncated: z
    .boolean()
    .describe("True when the lines asked for did not fit one answer (read on from next_line), or a line was cut."),
  next_line: z.number().optional().describe("Where to read on (start_line of the next call) when truncated."),
});

/** Characters of numbered lines one text answer shows: the text budget less room for header and hints. */
const NUMBERED_ROOM = TEXT_BUDGET - 1_000;

export function readFileAnswer(answer: ReadFileAnswer): ToolAnswer<z.output<typeof output>> {
  const all = answer.text === "" ? [] : answer.text.replace(/\n$/, "").split("\n");
  const width = String(answer.endLine).length;
  const numbered = all.map((line, index) => `${String(answer.startLine + index).padStart(width)}│ ${line}`);
  // Line numbers add to the runner's byte budget (short lines, many of them): the lines that do
  // not fit the text answer are left out of both forms, so that both say where to read on.
  const shown = linesThatFit(numbered, NUMBERED_ROOM);
  const cutHere = shown < numbered.length;
  const endLine = cutHere ? answer.startLine + shown - 1 : answer.endLine;
  const truncated = answer.truncated || cutHere;
  // The runner cuts a single line longer than its budget (minified code) without its line break.
  const longLineCut = answer.truncated && !cutHere && answer.text !== "" && !answer.text.endsWith("\n");
  const text = cutHere ? `${all.slice(0, shown).join("\n")}\n` : answer.text;
  const more = !truncated
    ? []
    : longLineCut
      ? [
          `… line ${endLine} is longer than ${READ_MAX_BYTES} bytes and was cut; search_text finds text in it. ` +
            (endLine < answer.totalLines ? `Read on with start_line ${endLine + 1}.` : "It is the last line."),
        ]
      : [`… more lines not shown: read on with start_line ${endLine + 1}.`];
  const header =
    Number(answer.size) === 0
      ? `${answer.file}: empty (0 bytes), sha256 ${answer.contentSha256}`
      : `${answer.file}: lines ${answer.startLine}–${endLine} of ${answer.totalLines}, sha256 ${answer.contentSha256}`;
  const next = truncated && endLine < answer.totalLines ? endLine + 1 : undefined;
  return {
    text: [header, ...numbered.slice(0, shown), ...more].join("\n"),
    structured: {
      file: answer.file,
      text,
      start_line: answer.startLine,
      end_line: endLine,
      total_lines: answer.totalLines,
      size: Number(answer.size),
      sha256: answer.contentSha256,
      truncated,
      ...(next !== undefined ? { next_line: next } : {}),
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
