import { create } from "@bufbuild/protobuf";
import { DiagnosticsDeltaSchema, Severity } from "@lspmesh/proto";
import { describe, expect, test } from "vitest";
import { deltaFrom, deltaRequest, deltaText } from "./diagnosticsDelta.js";

const diagnostic = (line: number, column: number, code: string, message: string, severity = Severity.ERROR) => ({
  range: { start: { line, column }, end: { line, column: column + 6 } },
  severity,
  code,
  source: "typescript",
  message,
});

const delta = create(DiagnosticsDeltaSchema, {
  changes: [
    {
      file: "src/main.ts",
      state: "new",
      diagnostic: diagnostic(5, 21, "2339", "Property 'length' does not exist on type 'number'."),
    },
    {
      file: "src/broken.ts",
      state: "fixed",
      diagnostic: diagnostic(3, 14, "2322", "Type 'string' is not assignable to type 'number'."),
    },
    { file: "src/größe.ts", state: "unchanged", diagnostic: diagnostic(1, 7, "6133", "'x' is unused.", Severity.HINT) },
    { file: "src/a.ts", state: "moved", diagnostic: diagnostic(1, 1, "1", "an unknown state is left out") },
  ],
  editedFiles: ["src/greeter.ts"],
  importerFiles: ["src/main.ts", "src/broken.ts", "src/größe.ts"],
});

describe("diagnostics delta", () => {
  test("runner changes become 1-based ranges with state and severity names; counts per state", () => {
    const output = deltaFrom(delta);
    expect(output.changes[0]).toEqual({
      file: "src/main.ts",
      state: "new",
      line: 5,
      column: 21,
      end_line: 5,
      end_column: 27,
      severity: "error",
      code: "2339",
      source: "typescript",
      message: "Property 'length' does not exist on type 'number'.",
    });
    expect(output.changes.map((change) => [change.state, change.severity])).toEqual([
      ["new", "error"],
      ["fixed", "error"],
      ["unchanged", "hint"],
    ]);
    expect(output).toMatchObject({
      counts: { new: 1, fixed: 1, unchanged: 1 },
      edited_files: ["src/greeter.ts"],
      importer_files: ["src/main.ts", "src/broken.ts", "src/größe.ts"],
      importers_not_checked: 0,
      partial: false,
    });
    expect(output.note).toBeUndefined();
  });

  test("the text lists new and fixed diagnostics under the summary and only counts unchanged ones", () => {
    expect(deltaText(deltaFrom(delta), "check_edit:")).toEqual([
      "check_edit: 1 new, 1 fixed, 1 unchanged in 4 files (1 edited, 3 importers).",
      "New (1):",
      "src/main.ts:5:21 error 2339: Property 'length' does not exist on type 'number'.",
      "Fixed (1):",
      "src/broken.ts:3:14 error 2322: Type 'string' is not assignable to type 'number'.",
    ]);
  });

  test("a partial delta gives the runner's reason, and says that 0 new proves nothing", () => {
    const partial = deltaFrom(
      create(DiagnosticsDeltaSchema, {
        editedFiles: ["src/a.ts"],
        importersNotChecked: 12,
        partial: true,
        note: "12 more importing file(s) not checked (at most 30 are); check them with diagnostics",
      }),
    );
    expect(deltaText(partial, "Diagnostics after the edit:")).toEqual([
      "Diagnostics after the edit: 0 new, 0 fixed, 0 unchanged in 1 file (1 edited, 0 importers).",
      "Incomplete: 12 more importing file(s) not checked (at most 30 are); check them with diagnostics. 0 new proves nothing.",
    ]);
    const late = deltaFrom(create(DiagnosticsDeltaSchema, { editedFiles: ["src/a.ts"], partial: true }));
    expect(deltaText(late, "check_edit:")[1]).toMatch(/^Incomplete: .*retry with a larger wait_ms/);
    const uncounted = deltaFrom(create(DiagnosticsDeltaSchema, { editedFiles: ["src/a.ts"], importersNotChecked: 3 }));
    expect(deltaText(uncounted, "check_edit:")[1]).toBe(
      "Incomplete: 3 more importing files not checked; run diagnostics on them. 0 new proves nothing.",
    );
  });

  test("a delta is asked only when the call writes and diagnostics is on; the deadline grows by wait_ms", () => {
    expect(deltaRequest({ diagnostics: true, wait_ms: 10_000 }, false)).toEqual({});
    expect(deltaRequest({ diagnostics: false, wait_ms: 10_000 }, true)).toEqual({});
    expect(deltaRequest({ diagnostics: true, wait_ms: 4000 }, true)).toEqual({
      delta: { enabled: true, waitMs: 4000 },
      extraMs: 4000,
    });
    // 0 on the wire means the runner's default: "at once" is sent as 1 ms.
    expect(deltaRequest({ diagnostics: true, wait_ms: 0 }, true).delta?.waitMs).toBe(1);
  });
});
