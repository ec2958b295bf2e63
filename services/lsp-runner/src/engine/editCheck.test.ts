import { expect, test } from "vitest";
import type { Diagnostic } from "./answers.js";
import { type CheckedFiles, type DiagnosedAnswer, deltaOf } from "./editCheck.js";

const error = (line: number, message: string): Diagnostic => ({
  range: { start: { line, column: 1 }, end: { line, column: 5 } },
  severity: 1,
  code: "",
  source: "ts",
  message,
});

function diagnosed(texts: Record<string, Diagnostic[]>, stale: string[] = []): DiagnosedAnswer {
  const lines = ["let a = 1;", "let b = 2;", "let c = 3;"];
  return {
    status: { state: "ready", language: "typescript", server: "tsserver", partial: false, note: "" },
    texts: new Map(Object.entries(texts).map(([file, diagnostics]) => [file, { diagnostics, lines }])),
    stale,
    answer: { status: undefined as never, files: [], epoch: 0, truncated: 0, truncatedAtLeast: false },
  } as unknown as DiagnosedAnswer;
}

const files: CheckedFiles = { edited: ["src/a.ts"], importers: ["src/b.ts"], notChecked: 0, notes: [] };

test("a file whose diagnostics before the edit did not arrive is not compared: its problems are neither new nor fixed", () => {
  const before = diagnosed({ "src/a.ts": [], "src/b.ts": [error(2, "old")] }, ["src/a.ts"]);
  const after = diagnosed({
    "src/a.ts": [error(1, "was there all along")],
    "src/b.ts": [error(2, "old"), error(3, "new")],
  });
  const delta = deltaOf(files, before, after);
  expect(delta.changes.map((change) => [change.file, change.state, change.diagnostic.message])).toEqual([
    ["src/b.ts", "new", "new"],
    ["src/b.ts", "unchanged", "old"],
  ]);
  expect(delta.partial).toBe(true);
  expect(delta.note).toContain("the diagnostics of src/a.ts before the edit did not arrive in time");
});

test("every file known before and after: compared, complete", () => {
  const before = diagnosed({ "src/a.ts": [error(1, "gone")], "src/b.ts": [] });
  const after = diagnosed({ "src/a.ts": [], "src/b.ts": [] });
  const delta = deltaOf(files, before, after);
  expect(delta.changes.map((change) => [change.file, change.state])).toEqual([["src/a.ts", "fixed"]]);
  expect(delta.partial).toBe(false);
});
