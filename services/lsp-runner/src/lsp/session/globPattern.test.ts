import { expect, test } from "vitest";
import { globToRegExp } from "./globPattern.js";

test.each([
  ["**/*.ts", "/w/src/a.ts", true],
  ["**/*.ts", "a.ts", true],
  ["**/*.ts", "/w/src/a.tsx", false],
  ["**/*.{ts,js}", "/w/a.js", true],
  ["**/*.{ts,js}", "/w/a.py", false],
  ["*.ts", "a.ts", true],
  ["*.ts", "src/a.ts", false],
  ["src/**/*.py", "src/a.py", true],
  ["src/**/*.py", "src/x/y/a.py", true],
  ["src/**", "src/x/y/a.py", true],
  ["src/**", "other/a.py", false],
  ["file?.ts", "file1.ts", true],
  ["file?.ts", "file10.ts", false],
  ["file[0-9].ts", "file7.ts", true],
  ["file[!0-9].ts", "file7.ts", false],
  ["file[!0-9].ts", "fileA.ts", true],
  ["a.b+c(d).ts", "a.b+c(d).ts", true],
  ["a.b+c(d).ts", "aXb+c(d).ts", false],
  ["**/tsconfig.json", "/w/tsconfig.json", true],
  ["**/node_modules/**", "/w/node_modules/x/index.d.ts", true],
])("%s on %s is %s", (glob, path, expected) => {
  expect(globToRegExp(glob).test(path)).toBe(expected);
});
