import { describe, expect, test } from "vitest";
import {
  answerText,
  describeTarget,
  emptyAnswerText,
  locationText,
  statusHeader,
  TEXT_BUDGET,
  withinBudget,
} from "./text.js";
import type { AnswerStatusOutput } from "./toolSupport/shared.js";

const ready: AnswerStatusOutput = { state: "ready", partial: false, language: "typescript", server: "tsserver" };
const indexing: AnswerStatusOutput = { ...ready, state: "indexing", partial: true };

test("results withheld because they lie outside the caller's workspaces are said, never 'no definition found'", () => {
  const text = emptyAnswerText({ ...ready, note: "1 result outside your workspaces withheld" }, "No definition found.");
  expect(text).toBe(
    "Nothing to show: 1 result outside your workspaces withheld (outside the workspaces this caller may see).",
  );
});

test("withheld results beside other gaps: each said once, in its own sentence", () => {
  const note = "1 result outside your workspaces withheld; 5 more project(s) not loaded (the limit is 24)";
  expect(emptyAnswerText({ ...ready, partial: true, note }, "none")).toBe(
    "Nothing to show: 1 result outside your workspaces withheld (outside the workspaces this caller may see). Other results may be missing: 5 more project(s) not loaded (the limit is 24).",
  );
  expect(emptyAnswerText({ ...indexing, note: "2 results outside your workspaces withheld" }, "none")).toBe(
    "Nothing to show: 2 results outside your workspaces withheld (outside the workspaces this caller may see). Other results may be missing: the typescript server is indexing.",
  );
});

describe("answers from a server that is not ready", () => {
  test("an empty answer says the server is not ready, never plainly 'no results'", () => {
    const text = emptyAnswerText(indexing, "No definition found.");
    expect(text).toBe("No results yet: the typescript server is indexing; try again shortly.");
    expect(text).not.toContain("No definition found");
  });

  test("the note explains why", () => {
    expect(emptyAnswerText({ ...indexing, note: "indexing 120 of 900 files" }, "none")).toMatch(
      /\(indexing 120 of 900 files\)$/,
    );
  });

  test.each([
    ["starting", "is starting; try again shortly"],
    ["degraded", "is degraded; fix what its note names, or try again shortly if it names nothing"],
    ["failed", "has failed; try again later"],
  ] as const)("state %s without the partial flag is still not claimed empty", (state, phrase) => {
    expect(emptyAnswerText({ ...ready, state }, "none")).toBe(`No results yet: the typescript server ${phrase}.`);
  });

  test("a partial answer from a ready server (e.g. fan-out gaps) is worded too", () => {
    expect(emptyAnswerText({ ...ready, partial: true }, "none")).toMatch(/^No results yet: .* answered only partially/);
  });

  test("a ready server's partial answer gives its reason, not 'try again shortly' (waiting does not lift a cap)", () => {
    const capped = { ...ready, partial: true, note: "40 more source file(s) not checked" };
    expect(statusHeader(capped)).toBe("Partial answer, results may be incomplete: 40 more source file(s) not checked.");
    expect(emptyAnswerText(capped, "none")).toBe(
      "No results, but the answer may be incomplete: 40 more source file(s) not checked.",
    );
  });

  test("a non-empty partial answer gets a header; a complete one does not", () => {
    expect(statusHeader(indexing)).toBe(
      "Partial answer: the typescript server is indexing, so results may be incomplete; try again shortly for more.",
    );
    expect(statusHeader(ready)).toBeUndefined();
  });

  test("a complete answer about a file's own content from a server not ready gets no 'partial' header", () => {
    // gopls that cannot load the workspace still outlines a file: partial false, and the text agrees.
    expect(statusHeader({ ...ready, state: "degraded" })).toBeUndefined();
    expect(answerText({ ...ready, state: "degraded" }, true, "none", "func main")).toBe("func main");
  });

  test("an empty answer from a ready server says there is nothing", () => {
    expect(emptyAnswerText(ready, "No definition found.")).toBe("No definition found.");
  });

  test("without a language id the wording stays general", () => {
    expect(emptyAnswerText({ ...indexing, language: "" }, "none")).toMatch(/the language server is indexing/);
  });
});

test("a location is file:line:column with its code line indented below", () => {
  expect(locationText({ file: "a.ts", line: 2, column: 3, end_line: 2, end_column: 4, snippet: "let x = 1;  " })).toBe(
    "a.ts:2:3\n  let x = 1;",
  );
  expect(locationText({ file: "a.ts", line: 2, column: 3, end_line: 2, end_column: 4, snippet: "" })).toBe("a.ts:2:3");
});

describe("describeTarget with column and symbol both given", () => {
  const at = (columnHint: number) => ({
    file: "src/a.ts",
    target: { case: "symbol" as const, value: { name: "greet", lineHint: 4, occurrence: 0, columnHint } },
  });

  test("says the given column was used when the symbol stands there", () => {
    expect(describeTarget(at(9), { ...ready, resolved: { line: 4, column: 9 } })).toBe(
      "`greet` at src/a.ts:4:9 (the given column)",
    );
  });

  test("says where the symbol was found instead when it was not at the column", () => {
    expect(describeTarget(at(2), { ...ready, resolved: { line: 5, column: 3 } })).toBe(
      "`greet` at src/a.ts:5:3 (not at the given src/a.ts:4:2; found near that line)",
    );
  });
});

test("any text answer is cut at a line under the budget, saying how much is left and where", () => {
  const line = `src/a.ts:1:1 ${"x".repeat(90)}`;
  const text = Array.from({ length: 1000 }, () => line).join("\n");
  const cut = withinBudget(text);
  expect(cut.length).toBeLessThanOrEqual(TEXT_BUDGET);
  const kept = cut.split("\n").filter((l) => l === line).length;
  expect(cut.split("\n").at(-1)).toBe(
    `… ${1000 - kept} more lines not shown: a text answer is kept under ${TEXT_BUDGET} characters. structuredContent has everything; or narrow the request (limit and offset, a line range, one file).`,
  );
  expect(withinBudget("short")).toBe("short");
});

test("a complete answer's note is said after its results (results withheld from outside the workspace)", () => {
  const status = { ...ready, note: "2 results outside your workspaces withheld" };
  expect(answerText(status, true, "none", "rich/a.py:1:1")).toBe(
    "rich/a.py:1:1\nNote: 2 results outside your workspaces withheld.",
  );
  expect(answerText({ ...status, note: "" }, true, "none", "rich/a.py:1:1")).toBe("rich/a.py:1:1");
});

test("the header of a partial answer does not repeat the runner's note that the server is not ready", () => {
  const note =
    "the typescript server is indexing (loading projects): this answer may be incomplete; try again shortly; 2 files skipped";
  expect(statusHeader({ ...indexing, note })).toBe(
    "Partial answer: the typescript server is indexing, so results may be incomplete; try again shortly for more. (2 files skipped)",
  );
  expect(statusHeader({ ...indexing, note: note.split("; 2")[0]! })).toBe(
    "Partial answer: the typescript server is indexing, so results may be incomplete; try again shortly for more.",
  );
});
