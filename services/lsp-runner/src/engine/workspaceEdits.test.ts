import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";
import { OpenDocument } from "../lsp/documents/openDocument.js";
import type { LanguageSession } from "../lsp/session/languageSession.js";
import { WorkspacePaths } from "../workspace/workspacePaths.js";
import { fromLspWorkspaceEdit } from "./workspaceEdits.js";

const base = mkdtempSync(join(tmpdir(), "lspmesh-edits-"));
let paths: WorkspacePaths;
const uri = (path: string) => pathToFileURL(join(paths.root, path)).href;
const open = new Map<string, OpenDocument>();
// The conversion reads only these members of a session.
const session = { encoding: "utf-16", document: (u: string) => open.get(u) } as unknown as LanguageSession;
const range = (line: number, character: number, endCharacter: number) => ({
  start: { line, character },
  end: { line, character: endCharacter },
});

beforeAll(async () => {
  mkdirSync(join(base, "ws/src"), { recursive: true });
  writeFileSync(join(base, "ws/src/disk.ts"), "const 🎉 = 1; const name = 2;\n");
  paths = await WorkspacePaths.open(join(base, "ws"));
  open.set(uri("src/open.ts"), new OpenDocument(uri("src/open.ts"), "typescript", "let 名 = 1;\n", 4, 0));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

test("changes: positions converted from UTF-16 against the open document or the disk, with what they were computed for", async () => {
  const edit = await fromLspWorkspaceEdit(paths, session, {
    changes: {
      [uri("src/disk.ts")]: [{ range: range(0, 20, 24), newText: "label" }],
      [uri("src/open.ts")]: [{ range: range(0, 4, 5), newText: "n" }],
    },
  });
  expect(edit.files).toEqual([
    {
      file: "src/disk.ts",
      // The astral emoji is two UTF-16 units and one column.
      edits: [{ range: { start: { line: 1, column: 20 }, end: { line: 1, column: 24 } }, newText: "label" }],
      expectedVersion: 0,
      expectedSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    },
    {
      file: "src/open.ts",
      edits: [{ range: { start: { line: 1, column: 5 }, end: { line: 1, column: 6 } }, newText: "n" }],
      expectedVersion: 4,
      expectedSha256: open.get(uri("src/open.ts"))!.hash,
    },
  ]);
});

test("documentChanges: file operations in order; edits after a rename address the old path; created files are unchecked", async () => {
  const edit = await fromLspWorkspaceEdit(paths, session, {
    documentChanges: [
      { kind: "create", uri: uri("src/new.ts") },
      { textDocument: { uri: uri("src/new.ts"), version: null }, edits: [{ range: range(0, 0, 0), newText: "x\n" }] },
      { kind: "rename", oldUri: uri("src/disk.ts"), newUri: uri("src/moved.ts") },
      { textDocument: { uri: uri("src/moved.ts"), version: 7 }, edits: [{ range: range(0, 0, 5), newText: "let" }] },
      { kind: "delete", uri: uri("src/open.ts") },
    ],
  });
  expect(edit.operations).toEqual([
    { kind: "create", file: "src/new.ts", newFile: "" },
    { kind: "rename", file: "src/disk.ts", newFile: "src/moved.ts" },
    { kind: "delete", file: "src/open.ts", newFile: "" },
  ]);
  expect(edit.files.map((f) => [f.file, f.expectedVersion, f.expectedSha256 !== ""])).toEqual([
    ["src/new.ts", 0, false],
    ["src/disk.ts", 7, true],
  ]);
});

test("an edit touching any file outside the workspace is refused whole, naming no path", async () => {
  const outside = pathToFileURL(join(base, "secret.ts")).href;
  await expect(
    fromLspWorkspaceEdit(paths, session, {
      changes: { [uri("src/disk.ts")]: [{ range: range(0, 0, 1), newText: "x" }], [outside]: [] },
    }),
  ).rejects.toMatchObject({ code: "OUTSIDE_WORKSPACE", message: expect.not.stringContaining(base) });
  await expect(
    fromLspWorkspaceEdit(paths, session, { documentChanges: [{ kind: "delete", uri: "untitled:Untitled-1" }] }),
  ).rejects.toMatchObject({ code: "OUTSIDE_WORKSPACE" });
});

test("an edit of a file that cannot be read is refused rather than converted against nothing", async () => {
  await expect(
    fromLspWorkspaceEdit(paths, session, {
      changes: { [uri("src/missing.ts")]: [{ range: range(0, 0, 1), newText: "x" }] },
    }),
  ).rejects.toMatchObject({
    code: "INVALID_ARGUMENT",
    message: expect.stringMatching(/src\/missing.ts, which cannot be read/),
  });
});

test("an edit of a link to a file outside the workspace is refused as outside, naming the link, not its target", async () => {
  writeFileSync(join(base, "secret.ts"), "export const secret = 1;\n");
  symlinkSync(join(base, "secret.ts"), join(base, "ws/src/outlink.ts"));
  const refused = fromLspWorkspaceEdit(paths, session, {
    changes: { [uri("src/outlink.ts")]: [{ range: range(0, 13, 19), newText: "renamed" }] },
  });
  await expect(refused).rejects.toMatchObject({
    code: "OUTSIDE_WORKSPACE",
    message: expect.stringMatching(/changes src\/outlink\.ts, which links to a file outside the workspace/),
  });
  await expect(refused).rejects.toMatchObject({ message: expect.not.stringContaining(base) });
});
