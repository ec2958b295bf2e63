import { create } from "@bufbuild/protobuf";
import { DiagnosticsAnswerSchema, ServerState, Severity } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { diagnosticsAnswer } from "./diagnostics.js";

function diagnostic(line: number, column: number, severity: Severity, code: string, message: string) {
  return {
    range: { start: { line, column }, end: { line, column: column + 1 } },
    severity,
    code,
    source: "typescript",
    message,
  };
}

test("one line per diagnostic: file:line:col severity code: message, under a summary", () => {
  const answer = create(DiagnosticsAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript" },
    files: [
      {
        file: "src/größe.ts",
        fresh: true,
        version: 3,
        diagnostics: [
          diagnostic(2, 7, Severity.ERROR, "2322", "Type 'number' is not assignable to type 'Größe'."),
          diagnostic(5, 1, Severity.WARNING, "", "Unused 'ß'.\n  Remove it."),
        ],
      },
      { file: "src/ok.ts", fresh: true, version: 1 },
    ],
  });
  const { text, structured } = diagnosticsAnswer(answer, []);
  expect(text).toBe(
    [
      "1 error, 1 warning in 1 file:",
      "src/größe.ts:2:7 error 2322: Type 'number' is not assignable to type 'Größe'.",
      "src/größe.ts:5:1 warning: Unused 'ß'.",
      "    Remove it.",
    ].join("\n"),
  );
  expect(structured.counts).toEqual({ error: 1, warning: 1, information: 0, hint: 0 });
  expect(structured.files[0]?.diagnostics[0]).toEqual({
    line: 2,
    column: 7,
    end_line: 2,
    end_column: 8,
    severity: "error",
    code: "2322",
    source: "typescript",
    message: "Type 'number' is not assignable to type 'Größe'.",
  });
  expect(structured.files[0]?.diagnostics[1]).not.toHaveProperty("code");
  expect(structured.files[1]).toEqual({ file: "src/ok.ts", fresh: true, version: 1, diagnostics: [] });
});

test("files whose diagnostics are older than their content are named", () => {
  const answer = create(DiagnosticsAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript" },
    files: [{ file: "src/a.ts", fresh: false, version: 2 }],
  });
  expect(diagnosticsAnswer(answer, ["src/a.ts"]).text).toBe(
    "No diagnostics reported so far.\nNot yet re-checked after their latest change (retry with a larger wait_ms): src/a.ts",
  );
});

test("no diagnostics: 'no problems' only from a ready server", () => {
  const ready = create(DiagnosticsAnswerSchema, {
    status: { state: ServerState.READY },
    files: [{ file: "a.ts", fresh: true }],
  });
  expect(diagnosticsAnswer(ready, ["a.ts"]).text).toBe("No problems: no diagnostics in 1 file.");
  expect(diagnosticsAnswer(create(DiagnosticsAnswerSchema, { status: { state: ServerState.READY } }), []).text).toBe(
    "No problems: no diagnostics in the workspace.",
  );
  const indexing = create(DiagnosticsAnswerSchema, {
    status: { state: ServerState.INDEXING, language: "typescript", partial: true },
  });
  expect(diagnosticsAnswer(indexing, []).text).toBe(
    "No results yet: the typescript server is indexing; try again shortly.",
  );
});
