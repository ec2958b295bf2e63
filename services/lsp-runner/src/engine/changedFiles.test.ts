import { expect, test } from "vitest";
import { changedFilesOf } from "./changedFiles.js";

const edits = (file: string) => ({ file, edits: [], expectedVersion: 0, expectedSha256: "" });

test("text-edited and renamed files are compared, deleted ones are not", () => {
  const changed = changedFilesOf({
    files: [edits("src/a.ts"), edits("src/moved.ts"), edits("src/gone.ts")],
    operations: [
      { kind: "rename", file: "src/moved.ts", newFile: "lib/moved.ts" },
      { kind: "rename", file: "src/plain.ts", newFile: "lib/plain.ts" },
      { kind: "delete", file: "src/gone.ts", newFile: "" },
    ],
  });
  expect(changed.files).toEqual(["src/a.ts", "src/moved.ts", "src/plain.ts"]);
  expect([...changed.renamed]).toEqual([
    ["src/moved.ts", "lib/moved.ts"],
    ["src/plain.ts", "lib/plain.ts"],
  ]);
});
