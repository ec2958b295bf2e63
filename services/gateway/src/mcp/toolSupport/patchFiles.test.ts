import { expect, test } from "vitest";
import { patchFiles } from "./patchFiles.js";

test("files of a git diff: +++ names, a/ b/ stripped, deleted files by their --- name, each once", () => {
  const patch = [
    "diff --git a/src/greeter.ts b/src/greeter.ts",
    "index 1111111..2222222 100644",
    "--- a/src/greeter.ts",
    "+++ b/src/greeter.ts",
    "@@ -1,3 +1,3 @@",
    " export const a = 1;",
    "--- not a header: a removed line starting with two dashes",
    "+++ nor this: an added line",
    "-export const b = 2;",
    "+export const b = 3;",
    "",
    "\\ No newline at end of file",
    "--- a/src/old.ts",
    "+++ /dev/null",
    "@@ -1 +0,0 @@",
    "-gone",
    "--- /dev/null",
    "+++ b/src/new.ts",
    "@@ -0,0 +1 @@",
    "+fresh",
    "--- a/src/greeter.ts",
    "+++ b/src/greeter.ts",
    "@@ -9 +9 @@",
    "-x",
    "+y",
  ].join("\n");
  expect(patchFiles(patch)).toEqual(["src/greeter.ts", "src/old.ts", "src/new.ts"]);
});

test("diff -u timestamps, CRLF line ends, git's quoted names and paths without prefixes", () => {
  expect(
    patchFiles("--- src/a.py\t2026-01-01 10:00:00\r\n+++ src/a.py\t2026-01-02 10:00:00\r\n@@ -1 +1 @@\r\n-x\r\n+y\r\n"),
  ).toEqual(["src/a.py"]);
  expect(patchFiles('--- "a/src/gr\\303\\274\\303\\237e.ts"\n+++ "b/src/gr\\303\\274\\303\\237e.ts"\n')).toEqual([
    "src/grüße.ts",
  ]);
  expect(patchFiles('--- a/x\n+++ "b/with \\"quote\\" and\\ttab.ts"\n')).toEqual(['with "quote" and\ttab.ts']);
});

test("text without headers names no file", () => {
  expect(patchFiles("@@ -1 +1 @@\n-a\n+b\n")).toEqual([]);
  expect(patchFiles("just some text")).toEqual([]);
});
