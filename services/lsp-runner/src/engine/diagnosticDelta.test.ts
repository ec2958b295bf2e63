import { expect, test } from "vitest";
import type { Diagnostic } from "./answers.js";
import { compareDiagnostics } from "./diagnosticDelta.js";

const diagnostic = (line: number, message: string, code = "2322"): Diagnostic => ({
  range: { start: { line, column: 1 }, end: { line, column: 5 } },
  severity: 1,
  code,
  source: "typescript",
  message,
});

test("moved lines keep their diagnostics unchanged; new and fixed are told apart", () => {
  const before = {
    lines: ["let a: number = 's';", "f();"],
    diagnostics: [diagnostic(1, "not assignable"), diagnostic(2, "f?")],
  };
  const after = {
    lines: ["// added", "let a: number = 's';", "f();", "g();"],
    diagnostics: [diagnostic(2, "not assignable"), diagnostic(4, "g?")],
  };
  const changes = compareDiagnostics("a.ts", before, after).map(
    (c) => `${c.state}:${c.diagnostic.range.start.line}:${c.diagnostic.message}`,
  );
  expect(changes).toEqual(["new:4:g?", "fixed:2:f?", "unchanged:2:not assignable"]);
});

test("duplicates pair one to one, the surrounding lines breaking ties", () => {
  const lines = ["x();", "a", "x();", "b"];
  const before = { lines, diagnostics: [diagnostic(1, "x?"), diagnostic(3, "x?")] };
  const after = {
    lines: ["x();", "a", "x();", "b", "x();"],
    diagnostics: [diagnostic(1, "x?"), diagnostic(3, "x?"), diagnostic(5, "x?")],
  };
  const states = compareDiagnostics("a.ts", before, after).map((c) => `${c.state}:${c.diagnostic.range.start.line}`);
  expect(states).toEqual(["new:5", "unchanged:1", "unchanged:3"]);
});

test("an error on a line whose text changed (a rename on it) stays unchanged when it keeps its line", () => {
  const before = { lines: ["let a: number = old;"], diagnostics: [diagnostic(1, "not assignable")] };
  const after = { lines: ["let a: number = renamed;"], diagnostics: [diagnostic(1, "not assignable")] };
  expect(compareDiagnostics("a.ts", before, after).map((c) => c.state)).toEqual(["unchanged"]);
});

test("clangd's '(fix available)' ending, which follows its index and not the edit, does not make a diagnostic new", () => {
  const lines = ["size_t n;", "f();"];
  const clangd = (line: number, message: string): Diagnostic => ({
    ...diagnostic(line, message, "unknown_typename"),
    source: "clang",
  });
  const before = {
    lines,
    diagnostics: [
      clangd(1, "Unknown type name 'size_t'"),
      clangd(2, "Use of undeclared identifier 'f' (fix available)"),
    ],
  };
  const after = {
    lines,
    diagnostics: [
      clangd(1, "Unknown type name 'size_t' (fix available)"),
      clangd(2, "Use of undeclared identifier 'f' (fixes available)"),
    ],
  };
  const states = compareDiagnostics("a.cc", before, after).map((c) => `${c.state}:${c.diagnostic.message}`);
  expect(states).toEqual([
    "unchanged:Unknown type name 'size_t' (fix available)",
    "unchanged:Use of undeclared identifier 'f' (fixes available)",
  ]);
});
