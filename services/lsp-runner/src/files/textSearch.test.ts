import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { listFiles } from "./fileListing.js";
import { declaresAt, matchesOfLine, pathCategory, searchText } from "./textSearch.js";

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-search-"));
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write("src/use.ts", 'import { greet } from "./greet";\nconst 挨拶 = "🎉"; greet(挨拶);\n');
  write("src/greet.ts", "export function greet(name: string) {\n  return name;\n}\n");
  write("test/greet.test.ts", 'greet("x");\n');
  write("vendor/lib.js", "greet();\n");
  write("CHANGES.md", "- `function greet` learned names\n");
  write("ignored/skip.ts", "greet();\n");
  write(".gitignore", "ignored/\n");
  // rg honours .gitignore only inside a git repository unless told otherwise: an .ignore file works everywhere.
  write(".ignore", "ignored/\n");
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const base = { regex: false, globs: [], caseSensitive: false, includeIgnored: false, limit: 0, offset: 0 };

test("matches are ranked: declaration, source, tests, prose and vendored; columns count code points", async () => {
  const answer = await searchText({ ...base, root, query: "greet" });
  expect(answer.matches.map((m) => `${m.file}:${m.range.start.line}:${m.range.start.column}:${m.rank}`)).toEqual([
    "src/greet.ts:1:17:0",
    "src/use.ts:1:10:1",
    "src/use.ts:1:26:1",
    "src/use.ts:2:17:1",
    "test/greet.test.ts:1:1:2",
    // A changelog's `function greet` is prose, not a declaration.
    "CHANGES.md:1:13:3",
    "vendor/lib.js:1:1:3",
  ]);
  expect(answer).toMatchObject({ total: 7, totalAtLeast: false, filesWithMatches: 5, partial: false });
});

test("ignored files are searched only when asked; paging keeps the total", async () => {
  const all = await searchText({ ...base, root, query: "greet()", includeIgnored: true, limit: 1, offset: 1 });
  expect(all.total).toBe(2);
  expect(all.matches.map((m) => m.file)).toEqual(["vendor/lib.js"]);
});

test("regex queries and globs; a bad regex or a glob leaving the workspace is refused", async () => {
  const answer = await searchText({ ...base, root, query: "greet\\(\\w+\\)", regex: true, globs: ["src/**"] });
  expect(answer.matches.map((m) => m.file)).toEqual(["src/use.ts"]);
  await expect(searchText({ ...base, root, query: "greet(", regex: true })).rejects.toMatchObject({
    code: "INVALID_ARGUMENT",
    message:
      "the query is not a valid regex: unclosed group at character 6 of 'greet('; escape the special characters, or search literally (regex: false)",
  });
  await expect(searchText({ ...base, root, query: "x", globs: ["../**"] })).rejects.toThrow(/leaves the workspace/);
});

test("list_files: sorted, sized, globbed, ignored files only when asked", async () => {
  const listed = await listFiles({ root, globs: ["**/*.ts"], includeIgnored: false, limit: 0, offset: 0 });
  expect(listed.files.map((f) => f.file)).toEqual(["src/greet.ts", "src/use.ts", "test/greet.test.ts"]);
  expect(listed.files[0]!.size).toBe(55);
  const all = await listFiles({ root, globs: ["**/*.ts"], includeIgnored: true, limit: 0, offset: 0 });
  expect(all.files.map((f) => f.file)).toContain("ignored/skip.ts");
});

test("path categories and declaration heuristics", () => {
  expect(pathCategory("src/a.ts")).toBe("source");
  expect(pathCategory("pkg/a_test.go")).toBe("test");
  expect(pathCategory("tests/test_a.py")).toBe("test");
  expect(pathCategory("dist/a.min.js")).toBe("vendored");
  expect(declaresAt("export class Foo {", 14)).toBe(true);
  expect(declaresAt("  def foo(self):", 7)).toBe(true);
  expect(declaresAt("foo(bar)", 5)).toBe(false);
  expect(matchesOfLine('{"type":"begin","data":{}}')).toEqual([]);
});

test("files over the size cap are not searched, and the answer says so (partial, naming them)", async () => {
  const sized = mkdtempSync(join(tmpdir(), "lspmesh-search-sized-"));
  try {
    writeFileSync(join(sized, "small.py"), "MARKER = 1\n");
    writeFileSync(join(sized, "huge.py"), `${"x = 1\n".repeat(800_000)}MARKER = 2\n`); // 4.6 MiB
    const answer = await searchText({ ...base, root: sized, query: "MARKER" });
    expect(answer.matches.map((match) => match.file)).toEqual(["small.py"]);
    expect(answer.partial).toBe(true);
    expect(answer.note).toBe("1 file(s) over 4 MiB were not searched: huge.py");
    // Outside the globs asked for, a large file is no gap.
    const narrowed = await searchText({ ...base, root: sized, query: "MARKER", globs: ["small.py"] });
    expect(narrowed).toMatchObject({ partial: false, note: "" });
  } finally {
    rmSync(sized, { recursive: true, force: true });
  }
});

test("path globs that match no file: a complete answer saying so, not ripgrep's advice", async () => {
  const answer = await searchText({ ...base, root, query: "greet", globs: ["nonexistent/**"] });
  expect(answer).toMatchObject({ total: 0, partial: false, note: "no file matches the path globs" });
});
