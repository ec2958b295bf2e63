import { expect, test } from "vitest";
import { languageOfFile } from "./languages.js";

test.each([
  ["src/a.ts", "typescript"],
  ["src/App.TSX", "typescript"],
  ["lib/x.mjs", "typescript"],
  ["pkg/mod.py", "python"],
  ["cmd/main.go", "go"],
  ["src/lib.rs", "rust"],
  ["include/a.hpp", "cpp"],
  ["README.txt", ""],
  [".eslintrc", ""],
  ["dir.ts/file", ""],
])("%s is %s", (file, language) => {
  expect(languageOfFile(file)).toBe(language);
});
