import { describe, expect, test } from "vitest";
import { anchorFindings } from "./anchors.js";
import type { Finding, Severity } from "./findings.js";
import { buildReport, type CheckedFile, type ReportInput } from "./report.js";

const LINES = ["const a = 1;", "const b: number = 'x';", "const c = 3;"];

function finding(severity: Severity, line = 2, message = `a ${severity}`): Finding {
  return { file: "src/a.ts", line, column: 7, endLine: line, endColumn: 8, severity, code: "1", source: "ts", message };
}

function input(files: CheckedFile[], overrides: Partial<ReportInput> = {}): ReportInput {
  return {
    toolVersion: "0.0.0",
    mode: "embedded",
    targets: "changed",
    failOn: "error",
    includeHints: false,
    allowIncomplete: false,
    servers: ["ts", "ts", ""],
    files,
    skipped: [],
    incomplete: [],
    ...overrides,
  };
}

const file = (head: Finding[], base?: Finding[]): CheckedFile => ({
  file: "src/a.ts",
  head: anchorFindings(head, LINES),
  ...(base ? { base: anchorFindings(base, LINES) } : {}),
});

describe("exit code and outcome", () => {
  test("only new findings at or above --fail-on fail the check", () => {
    const warningOnly = file([finding("warning")]);
    expect(buildReport(input([warningOnly])).exitCode).toBe(0);
    expect(buildReport(input([warningOnly], { failOn: "warning" })).exitCode).toBe(1);
    expect(buildReport(input([file([finding("info")])], { failOn: "warning" })).exitCode).toBe(0);
    expect(buildReport(input([file([finding("info")])], { failOn: "info" })).exitCode).toBe(1);
    // Hints never fail, whatever the threshold.
    expect(buildReport(input([file([finding("hint")])], { failOn: "info" })).exitCode).toBe(0);
  });

  test("an old error does not fail; the same error, new, does", () => {
    const old = buildReport(input([file([finding("error")], [finding("error")])]));
    expect(old).toMatchObject({ outcome: "passed", exitCode: 0, failing: 0 });
    expect(old.counts.unchanged.error).toBe(1);
    const introduced = buildReport(input([file([finding("error")], [])]));
    expect(introduced).toMatchObject({ outcome: "failed", exitCode: 1, failing: 1 });
  });

  test("incomplete fails unless allowed; failing findings win over incompleteness", () => {
    const incomplete = [{ file: "src/b.ts", side: "head" as const, reason: "not checked within the timeout" }];
    expect(buildReport(input([file([])], { incomplete }))).toMatchObject({ outcome: "incomplete", exitCode: 1 });
    expect(buildReport(input([file([])], { incomplete, allowIncomplete: true }))).toMatchObject({
      outcome: "incomplete",
      exitCode: 0,
    });
    expect(buildReport(input([file([finding("error")])], { incomplete, allowIncomplete: true }))).toMatchObject({
      outcome: "failed",
      exitCode: 1,
    });
  });
});

test("findings: head ones by position (new or unchanged, with the base line), then fixed ones; servers de-duplicated", () => {
  const report = buildReport(
    input([
      file(
        [finding("error", 3, "moved"), finding("error", 1, "introduced")],
        [finding("error", 2, "moved"), finding("warning", 1, "gone")],
      ),
    ]),
  );
  // "moved" is on a different line text in this synthetic file, so it pairs only if the line matches.
  expect(report.files[0]!.findings.map((f) => [f.state, f.line, f.message, f.baseLine])).toEqual([
    ["new", 1, "introduced", undefined],
    ["new", 3, "moved", undefined],
    ["fixed", 1, "gone", 1],
    ["fixed", 2, "moved", 2],
  ]);
  expect(report.servers).toEqual(["ts"]);
  expect(report.files[0]!.findings.every((f) => /^[0-9a-f]{32}:1$/.test(f.fingerprint))).toBe(true);
});
