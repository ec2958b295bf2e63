import { create } from "@bufbuild/protobuf";
import { ListFilesAnswerSchema } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { TEXT_BUDGET } from "../text.js";
import { fakeToolCall } from "../toolSupport/fakeToolCall.js";
import { listFilesAnswer, listFilesTool } from "./listFiles.js";

const files = (...names: string[]) => names.map((file, index) => ({ file, size: BigInt(100 * (index + 1)) }));

test("a page lists paths with sizes and says where the next one starts", () => {
  const answer = create(ListFilesAnswerSchema, { files: files("src/a.ts", "src/b.ts"), total: 5 });
  const { text, structured } = listFilesAnswer(answer, 2);
  expect(text).toBe(["2 files (3–4 of 5); more with offset 4:", "  src/a.ts  100 B", "  src/b.ts  200 B"].join("\n"));
  expect(structured).toEqual({
    files: [
      { file: "src/a.ts", size: 100 },
      { file: "src/b.ts", size: 200 },
    ],
    total: 5,
    total_at_least: false,
    next_offset: 4,
    partial: false,
  });
});

test("nothing matching, an offset past the end, and a capped listing", () => {
  expect(listFilesAnswer(create(ListFilesAnswerSchema, {}), 0).text).toBe("No files match.");
  expect(listFilesAnswer(create(ListFilesAnswerSchema, { total: 3 }), 10).text).toBe("No files at offset 10: 3 match.");
  const capped = listFilesAnswer(
    create(ListFilesAnswerSchema, {
      files: files("a"),
      total: 100_000,
      totalAtLeast: true,
      note: "the listing stopped at 100000 files; narrow it with globs",
    }),
    0,
  );
  expect(capped.text).toMatch(
    /^1 file \(1–1 of 100000\+\); more with offset 1:\n {2}a {2}100 B\nNote: the listing stopped/,
  );
  expect(capped.structured).toMatchObject({ partial: true, total_at_least: true, next_offset: 1 });
});

test("a page longer than the text budget: the text pages on from what it shows", () => {
  const many = Array.from({ length: 5000 }, (_, i) => `src/deep/folder/of/files/file${String(i).padStart(4, "0")}.ts`);
  const { text, structured } = listFilesAnswer(
    create(ListFilesAnswerSchema, { files: files(...many), total: 6000 }),
    0,
  );
  expect(text.length).toBeLessThan(TEXT_BUDGET);
  const shown = Number(/^(\d+) files \(1–\1 of 6000\); more with offset \1:/.exec(text)?.[1]);
  expect(shown).toBeGreaterThan(100);
  expect(text).toContain(`file${String(shown - 1).padStart(4, "0")}.ts`);
  expect(text).not.toContain(`file${String(shown).padStart(4, "0")}.ts`);
  expect(text).toContain(`this text shows ${shown} of the 5000 files answered`);
  expect(structured.files).toHaveLength(5000);
  expect(structured.next_offset).toBe(5000);
});

test("the tool passes globs (one or several), ignore handling and paging to the runner", async () => {
  const call = fakeToolCall({ runner: { listFiles: () => create(ListFilesAnswerSchema, {}) } });
  await listFilesTool.invoke({ glob: "src/**/*.ts" }, call);
  await listFilesTool.invoke(
    { glob: ["**/*.ts", "!**/*.test.ts"], include_ignored: true, limit: 10, offset: 20 },
    call,
  );
  expect(call.asked.map(({ request }) => request)).toMatchObject([
    { globs: ["src/**/*.ts"], includeIgnored: false, limit: 200, offset: 0 },
    { globs: ["**/*.ts", "!**/*.test.ts"], includeIgnored: true, limit: 10, offset: 20 },
  ]);
});
