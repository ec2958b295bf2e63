import { create } from "@bufbuild/protobuf";
import { DiagnosticsAnswerSchema, ServerState, Severity } from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import { DIAGNOSTICS_TEXT_BUDGET, type DiagnosticsView, diagnosticsAnswer } from "./diagnosticsReport.js";

function diagnostic(line: number, column: number, severity: Severity, code: string, message: string) {
  return {
    range: { start: { line, column }, end: { line, column: column + 1 } },
    severity,
    code,
    source: "typescript",
    message,
  };
}

const named = (files: string[]): DiagnosticsView => ({ severity: "hint", limit: 50, offset: 0, requestedFiles: files });
const workspace = (view: Partial<DiagnosticsView> = {}): DiagnosticsView => ({
  severity: "warning",
  limit: 50,
  offset: 0,
  requestedFiles: [],
  ...view,
});

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
  const { text, structured } = diagnosticsAnswer(answer, named(["src/größe.ts", "src/ok.ts"]));
  expect(text).toBe(
    [
      "1 error, 1 warning in 1 file; 1 file clean.",
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
  // Named files are all listed, clean ones too.
  expect(structured.files[1]).toEqual({ file: "src/ok.ts", fresh: true, version: 1, diagnostics: [] });
  expect(structured).toMatchObject({ total: 2, files_checked: 2, files_with_problems: 1, files_clean: 1 });
});

test("files whose diagnostics are older than their content are named", () => {
  const answer = create(DiagnosticsAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript" },
    files: [{ file: "src/a.ts", fresh: false, version: 2 }],
  });
  const { text, structured } = diagnosticsAnswer(answer, named(["src/a.ts"]));
  expect(text).toBe(
    "No diagnostics reported so far.\nNot yet re-checked after their latest change (retry with a larger wait_ms): src/a.ts",
  );
  expect(structured).toMatchObject({ not_fresh: ["src/a.ts"], not_fresh_count: 1 });
});

test("no diagnostics: 'no problems' only from a ready server", () => {
  const ready = create(DiagnosticsAnswerSchema, {
    status: { state: ServerState.READY },
    files: [{ file: "a.ts", fresh: true }],
  });
  expect(diagnosticsAnswer(ready, named(["a.ts"])).text).toBe("No problems: no diagnostics in 1 file.");
  expect(diagnosticsAnswer(ready, workspace()).text).toBe("No problems: no errors or warnings in 1 checked file.");
  const indexing = create(DiagnosticsAnswerSchema, {
    status: { state: ServerState.INDEXING, language: "typescript", partial: true },
  });
  expect(diagnosticsAnswer(indexing, workspace()).text).toBe(
    "No results yet: the typescript server is indexing; try again shortly.",
  );
});

describe("a whole workspace with many files", () => {
  // 250 files: every fifth has an error and a hint, every tenth a warning; the rest are clean.
  const files = Array.from({ length: 250 }, (_, index) => ({
    file: `src/file${String(index).padStart(3, "0")}.ts`,
    fresh: index !== 7,
    version: 1,
    diagnostics: [
      ...(index % 5 === 0
        ? [
            diagnostic(3, 5, Severity.ERROR, "2322", `Type 'string' is not assignable to type 'number' (${index}).`),
            diagnostic(1, 1, Severity.HINT, "6133", "'x' is declared but its value is never read."),
          ]
        : []),
      ...(index % 10 === 0 ? [diagnostic(9, 2, Severity.WARNING, "", "Deprecated.")] : []),
    ],
  }));
  const answer = create(DiagnosticsAnswerSchema, {
    status: { state: ServerState.READY, language: "typescript" },
    files,
    truncated: 40,
  });

  test("a summary with the true counts, errors and warnings only, clean files counted not listed", () => {
    const { text, structured } = diagnosticsAnswer(answer, workspace());
    const [summary, ...rest] = text.split("\n");
    expect(summary).toBe(
      '50 errors, 25 warnings in 50 files; 199 files clean; 1 file not checked again yet; 50 hints not shown (severity: "hint" includes them).',
    );
    expect(rest.filter((line) => / (error|warning)/.test(line))).toHaveLength(50);
    expect(rest).toContain("Showing 1-50 of 75; call again with offset: 50 for more.");
    expect(text).not.toContain("file001.ts");
    expect(text).toContain(
      "Not yet re-checked after their latest change (retry with a larger wait_ms): src/file007.ts",
    );
    expect(structured).toMatchObject({
      counts: { error: 50, warning: 25, information: 0, hint: 50 },
      total: 75,
      offset: 0,
      next_offset: 50,
      files_checked: 250,
      files_with_problems: 50,
      files_clean: 199,
      not_fresh: ["src/file007.ts"],
      unchecked_files: 40,
      unchecked_at_least: false,
    });
    expect(structured.files.every((file) => file.diagnostics.length > 0)).toBe(true);
  });

  test("paging reaches every diagnostic once, and the last page has no next_offset", () => {
    const seen: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const { structured } = diagnosticsAnswer(answer, workspace({ offset, limit: 30 }));
      for (const file of structured.files) for (const d of file.diagnostics) seen.push(`${file.file}:${d.line}`);
      offset = structured.next_offset;
    }
    expect(seen).toHaveLength(75);
    expect(new Set(seen).size).toBe(75);
  });

  test("severity narrows the list, not the counts", () => {
    const errors = diagnosticsAnswer(answer, workspace({ severity: "error", limit: 500 }));
    expect(errors.structured.total).toBe(50);
    expect(errors.structured.counts.warning).toBe(25);
    expect(errors.text.split("\n")[0]).toBe(
      '50 errors in 50 files; 199 files clean; 1 file not checked again yet; 25 warnings, 50 hints not shown (severity: "hint" includes them).',
    );
    expect(diagnosticsAnswer(answer, workspace({ severity: "hint", limit: 500 })).structured.total).toBe(125);
  });

  test("the text stays under its budget whatever the limit, with the rest paged", () => {
    const long = "x".repeat(5_000);
    const noisy = create(DiagnosticsAnswerSchema, {
      status: { state: ServerState.READY, language: "typescript" },
      files: files.map((file) => ({ ...file, diagnostics: [diagnostic(1, 1, Severity.ERROR, "1", long)] })),
    });
    const { text, structured } = diagnosticsAnswer(noisy, workspace({ limit: 500 }));
    expect(text.length).toBeLessThanOrEqual(DIAGNOSTICS_TEXT_BUDGET);
    expect(structured.next_offset).toBe(structured.files.length);
    expect(text).toContain("… (message cut)");
    // structuredContent keeps whole messages.
    expect(structured.files[0]?.diagnostics[0]?.message).toBe(long);
  });
});
