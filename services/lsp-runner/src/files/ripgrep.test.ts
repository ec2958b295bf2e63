import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { globArguments, regexProblem, runRipgrep } from "./ripgrep.js";

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-ripgrep-"));
  writeFileSync(join(root, "many.txt"), "x\n".repeat(1000));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

test("a run stopped by its reader is killed and ends as stopped", async () => {
  let seen = 0;
  const outcome = await runRipgrep({
    cwd: root,
    args: ["--regexp", "x"],
    onLine: () => ++seen < 10,
  });
  // The promise settles on the child's close: rg has exited, with lines left unread.
  expect(outcome.stopped).toBe(true);
  expect(seen).toBe(10);
});

test("a cancelled run is killed and answers TIMEOUT", async () => {
  const run = runRipgrep({ cwd: root, args: ["--regexp", "x"], onLine: () => true, signal: AbortSignal.abort() });
  await expect(run).rejects.toMatchObject({ code: "TIMEOUT" });
});

test("a query rg refuses is INVALID_ARGUMENT in rg's words", async () => {
  const run = runRipgrep({ cwd: root, args: ["--regexp", "a\\nb"], onLine: () => true });
  await expect(run).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: /not allowed in a regex/ });
});

test("globs stay inside the workspace", () => {
  expect(globArguments(["src/**/*.ts", "!**/*.test.ts"])).toEqual(["--glob", "src/**/*.ts", "--glob", "!**/*.test.ts"]);
  for (const glob of ["../**", "/etc/*", "!src/../../x", "a/../b"]) {
    expect(() => globArguments([glob]), glob).toThrow(expect.objectContaining({ code: "OUTSIDE_WORKSPACE" }));
  }
  expect(() => globArguments(["!"])).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
});

test("without rg on PATH the error names the package to install", async () => {
  // rg is looked up once per process: a fresh copy of the module looks again, on a PATH without it.
  vi.resetModules();
  vi.stubEnv("PATH", root);
  const { ripgrepPath } = await import("./ripgrep.js");
  expect(() => ripgrepPath()).toThrow(
    expect.objectContaining({ code: "UNSUPPORTED", message: expect.stringMatching(/apt-get install ripgrep/) }),
  );
});

test("NUL and control characters in globs are refused as input errors", () => {
  expect(() => globArguments(["\u0000/./secret.ts/outside"])).toThrow(/control character/);
  expect(() => globArguments(["src/\n*.ts"])).toThrow(/control character/);
});

test("ripgrep's regex error becomes one line with its reason and where", () => {
  const stderr = "regex parse error:\n    get_current_context(\n                       ^\nerror: unclosed group\n";
  expect(regexProblem(stderr)).toBe(
    "the query is not a valid regex: unclosed group at character 20 of 'get_current_context('; escape the special characters, or search literally (regex: false)",
  );
  expect(regexProblem("error parsing glob '**/[': unclosed character class")).toBeUndefined();
});
