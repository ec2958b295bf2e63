import { create } from "@bufbuild/protobuf";
import { ReadFileAnswerSchema } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { TEXT_BUDGET } from "../text.js";
import { fakeToolCall } from "../toolSupport/fakeToolCall.js";
import { readFileAnswer, readFileTool } from "./readFile.js";

const SHA = "a".repeat(64);

function answer(fields: { text: string; startLine: number; endLine: number; totalLines: number; truncated?: boolean }) {
  return create(ReadFileAnswerSchema, { file: "src/a.ts", size: 1234n, contentSha256: SHA, ...fields });
}

test("lines are numbered like cat -n, under the range, total and the whole sha256 edits take", () => {
  const { text, structured } = readFileAnswer(
    answer({ text: "const a = 1;\n\nexport { a };\n", startLine: 8, endLine: 10, totalLines: 10 }),
  );
  expect(text).toBe(
    [`src/a.ts: lines 8–10 of 10, sha256 ${SHA}`, " 8│ const a = 1;", " 9│ ", "10│ export { a };"].join("\n"),
  );
  expect(structured).toEqual({
    file: "src/a.ts",
    text: "const a = 1;\n\nexport { a };\n",
    start_line: 8,
    end_line: 10,
    total_lines: 10,
    size: 1234,
    sha256: SHA,
    truncated: false,
  });
});

test("a read the runner cut says where to read on; a cut long line says so", () => {
  const cut = readFileAnswer(answer({ text: "a\nb\n", startLine: 1, endLine: 2, totalLines: 9, truncated: true }));
  expect(cut.text.split("\n").at(-1)).toBe("… more lines not shown: read on with start_line 3.");
  expect(cut.structured).toMatchObject({ end_line: 2, truncated: true, next_line: 3 });

  const minified = readFileAnswer(
    answer({ text: "x".repeat(50), startLine: 1, endLine: 1, totalLines: 1, truncated: true }),
  );
  expect(minified.text).toMatch(/line 1 is longer than 20000 bytes and was cut; .* It is the last line\.$/);
  expect(minified.structured).toMatchObject({ truncated: true });
  expect(minified.structured).not.toHaveProperty("next_line");
});

test("many short lines past the text budget: both forms stop at the last line shown", () => {
  const total = 5000;
  const text = "\n".repeat(total);
  const { text: shown, structured } = readFileAnswer(answer({ text, startLine: 1, endLine: total, totalLines: total }));
  expect(shown.length).toBeLessThan(TEXT_BUDGET);
  const last = structured.end_line;
  expect(last).toBeGreaterThan(1000);
  expect(last).toBeLessThan(total);
  expect(shown).toContain(
    `\n${String(last).padStart(4)}│ \n… more lines not shown: read on with start_line ${last + 1}.`,
  );
  expect(structured).toMatchObject({ truncated: true, next_line: last + 1, text: "\n".repeat(last) });
});

test("the tool asks the runner for the range (0 = not given) and refuses an inverted one", async () => {
  const call = fakeToolCall({
    runner: { readFile: () => answer({ text: "x\n", startLine: 3, endLine: 3, totalLines: 3 }) },
  });
  const read = async (args: Record<string, unknown>) => readFileTool.invoke(args, call);
  await read({ file: "src/a.ts", start_line: 3 });
  expect(call.asked[0]?.request).toMatchObject({ file: "src/a.ts", startLine: 3, endLine: 0, maxBytes: 20_000 });
  await expect(read({ file: "src/a.ts", start_line: 5, end_line: 2 })).rejects.toMatchObject({
    code: "INVALID_ARGUMENT",
  });
  await expect(read({ file: "src/a.ts", start_line: 0 })).rejects.toMatchObject({
    code: "INVALID_ARGUMENT",
  });
});

test("an empty file says it is empty", () => {
  const empty = create(ReadFileAnswerSchema, {
    file: "src/__init__.py",
    size: 0n,
    contentSha256: SHA,
    text: "",
    startLine: 1,
    endLine: 1,
    totalLines: 1,
  });
  expect(readFileAnswer(empty).text).toBe(`src/__init__.py: empty (0 bytes), sha256 ${SHA}`);
});
