// read_file, list_files and search_text through the runner's gRPC service on a temporary
// workspace: no language server involved, ripgrep (rg) walking and searching. The workspace is not
// a git checkout, and holds symlinks to a folder outside it that nothing may follow.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { DEFAULT_MAX_FILE_BYTES } from "../src/lsp/session/serverDocuments.js";
import { LanguageRegistry } from "./runnerInternals.js";
import { failure } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

let env: FixtureRunner;
let outside: string;

const files = {
  ".gitignore": "ignored/\nnode_modules/\n",
  "src/greet.ts": "export function greet(name: string) {\n  return name;\n}\n",
  // CJK (3 bytes each) and an emoji (4 bytes) before the call on line 2.
  "src/use.ts": 'import { greet } from "./greet";\nconst 挨拶 = "🎉"; greet(挨拶);\n',
  "test/greet.test.ts": 'greet("x");\n',
  "vendor/lib.js": "greet();\n",
  "node_modules/pkg/index.js": "greet();\n",
  "ignored/skip.ts": "greet();\n",
  // A BOM and CRLF line breaks: the hash is the one edits check (the text without the BOM).
  "bom.ts": "\uFEFFconst b = 1;\r\nconst c = 2;\r\n",
  // One 200-byte line: more than a small max_bytes on its own.
  "wide.txt": `${"é".repeat(100)}\nshort\n`,
  "bin.dat": "a\u0000b greet\n",
};

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

beforeAll(async () => {
  env = await startFixtureRunner({ files, languages: new LanguageRegistry([]), symbolIndex: { enabled: false } });
  outside = mkdtempSync(join(tmpdir(), "lspmesh-outside-"));
  writeFileSync(join(outside, "secret.ts"), "greet(secret);\n");
  symlinkSync(join(outside, "secret.ts"), join(env.dir, "src/leak.ts"));
  symlinkSync(outside, join(env.dir, "linked"));
  // One byte over the runner's file limit: listed, but neither read nor searched.
  writeFileSync(join(env.dir, "huge.txt"), `greet ${"x".repeat(DEFAULT_MAX_FILE_BYTES - 5)}`);
});

afterAll(async () => {
  await env?.close();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

const search = { workspace: ws, regex: false, globs: [], caseSensitive: false, includeIgnored: false };
const short = (m: {
  file: string;
  range?: { start?: { line: number; column: number }; end?: { column: number } };
  rank: number;
}) => `${m.file}:${m.range?.start?.line}:${m.range?.start?.column}-${m.range?.end?.column} r${m.rank}`;

test("search_text: ranked (declaration, source, test, vendored), code-point columns, .gitignore and symlinks respected, paged", async () => {
  const answer = await env.client.searchText({ ...search, query: "greet", limit: 0, offset: 0 });
  expect(answer.matches.map(short)).toEqual([
    "src/greet.ts:1:17-22 r0",
    "src/use.ts:1:10-15 r1",
    "src/use.ts:1:26-31 r1",
    "src/use.ts:2:17-22 r1",
    "test/greet.test.ts:1:1-6 r2",
    "vendor/lib.js:1:1-6 r3",
  ]);
  expect(answer.matches[3]?.lineText).toBe('const 挨拶 = "🎉"; greet(挨拶);');
  // huge.txt (over the file limit) holds "greet" too: not searched, and the answer says so.
  expect(answer).toMatchObject({
    total: 6,
    totalAtLeast: false,
    filesSearchedWithMatches: 4,
    partial: true,
    note: "1 file(s) over 4 MiB were not searched: huge.txt",
  });

  const page = await env.client.searchText({ ...search, query: "greet", limit: 2, offset: 2 });
  expect(page.matches.map(short)).toEqual(["src/use.ts:1:26-31 r1", "src/use.ts:2:17-22 r1"]);
  expect(page.total).toBe(6);
});

test("search_text with include_ignored: ignored files too, node_modules ranked vendored; still no symlink", async () => {
  const answer = await env.client.searchText({
    ...search,
    query: "greet()",
    includeIgnored: true,
    limit: 0,
    offset: 0,
  });
  expect(answer.matches.map(short)).toEqual([
    "ignored/skip.ts:1:1-8 r1",
    "node_modules/pkg/index.js:1:1-8 r3",
    "vendor/lib.js:1:1-8 r3",
  ]);
  const refused = await failure(env.client.searchText({ ...search, query: "a\nb", limit: 0, offset: 0 }));
  expect(refused.lspmeshCode).toBe("INVALID_ARGUMENT");
  const badRegex = await failure(env.client.searchText({ ...search, query: "(", regex: true, limit: 0, offset: 0 }));
  expect([badRegex.lspmeshCode, badRegex.details]).toEqual([
    "INVALID_ARGUMENT",
    expect.stringMatching(/^the query is not a valid regex: unclosed group at character 1 of /),
  ]);
});

test("list_files: sorted with sizes, .gitignore respected unless asked, no .git or symlinks, globs checked", async () => {
  const listed = await env.client.listFiles({ workspace: ws, globs: [], includeIgnored: false, limit: 0, offset: 0 });
  expect(listed.files.map((f) => f.file)).toEqual([
    ".gitignore",
    "bin.dat",
    "bom.ts",
    "huge.txt",
    "src/greet.ts",
    "src/use.ts",
    "test/greet.test.ts",
    "vendor/lib.js",
    "wide.txt",
  ]);
  expect(listed.files.find((f) => f.file === "src/use.ts")?.size).toBe(BigInt(Buffer.byteLength(files["src/use.ts"])));
  expect(listed.files.find((f) => f.file === "huge.txt")?.size).toBe(BigInt(DEFAULT_MAX_FILE_BYTES + 1));
  expect(listed).toMatchObject({ total: 9, totalAtLeast: false });

  const page = await env.client.listFiles({
    workspace: ws,
    globs: ["**/*.ts", "!test/**"],
    includeIgnored: true,
    limit: 2,
    offset: 1,
  });
  expect(page.files.map((f) => f.file)).toEqual(["ignored/skip.ts", "src/greet.ts"]);
  expect(page.total).toBe(4);

  const outsideGlob = await failure(
    env.client.listFiles({ workspace: ws, globs: ["../**"], includeIgnored: false, limit: 0, offset: 0 }),
  );
  expect(outsideGlob.lspmeshCode).toBe("OUTSIDE_WORKSPACE");
});

test("read_file: a line range with the edits' hash; a long first line is cut to max_bytes", async () => {
  const read = await env.client.readFile({ workspace: ws, file: "src/use.ts", startLine: 2, endLine: 0, maxBytes: 0 });
  expect(read).toMatchObject({
    file: "src/use.ts",
    text: 'const 挨拶 = "🎉"; greet(挨拶);\n',
    startLine: 2,
    endLine: 2,
    totalLines: 2,
    truncated: false,
    contentSha256: sha256(files["src/use.ts"]),
  });
  const bom = await env.client.readFile({ workspace: ws, file: "bom.ts", startLine: 0, endLine: 1, maxBytes: 0 });
  expect([bom.text, bom.endLine, bom.totalLines]).toEqual(["const b = 1;\n", 1, 2]);
  expect(bom.contentSha256).toBe(sha256(files["bom.ts"].slice(1)));

  // 51 bytes hold 25 two-byte characters: never half of one, never more than asked.
  const cut = await env.client.readFile({ workspace: ws, file: "wide.txt", startLine: 0, endLine: 0, maxBytes: 51 });
  expect([cut.text, cut.startLine, cut.endLine, cut.truncated]).toEqual(["é".repeat(25), 1, 1, true]);
  const fits = await env.client.readFile({ workspace: ws, file: "wide.txt", startLine: 0, endLine: 0, maxBytes: 205 });
  expect([fits.endLine, fits.truncated]).toEqual([1, true]);
});

test("read_file refuses symlinks and paths out of the workspace, binary and oversized files", async () => {
  const asked = { workspace: ws, startLine: 0, endLine: 0, maxBytes: 0 };
  for (const file of ["src/leak.ts", "linked/secret.ts", "../secret.ts", outside]) {
    const refused = await failure(env.client.readFile({ ...asked, file }));
    expect(refused.lspmeshCode, file).toBe("OUTSIDE_WORKSPACE");
    expect(refused.details).not.toContain("greet(secret)");
  }
  const binary = await failure(env.client.readFile({ ...asked, file: "bin.dat" }));
  expect([binary.lspmeshCode, binary.details]).toEqual([
    "INVALID_ARGUMENT",
    "bin.dat is a binary file; it has no lines to read",
  ]);
  const huge = await failure(env.client.readFile({ ...asked, file: "huge.txt" }));
  expect([huge.lspmeshCode, huge.details]).toEqual([
    "FILE_TOO_LARGE",
    "huge.txt is 4.0 MiB; files over 4 MiB are not read, and search_text skips them too",
  ]);
});
