// Edits applied to disk through the runner's gRPC service against a real
// typescript-language-server: exactly the server's edit lands, the servers see the new content,
// and stale, outside-the-workspace and failing edits change nothing.
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { GrpcStatus } from "@lspmesh/grpc";
import { FileOperation_Kind } from "@lspmesh/proto";
import { waitFor } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { at, failure, span, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner } from "./support/fixtureRunner.js";

const ws = { tenant: "local", workspace: "default" };
let env: FixtureRunner;
let client: FixtureRunner["client"];
const read = (file: string) => env.read(file);
const snapshot = () => env.snapshot();
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

beforeAll(async () => {
  env = await startFixtureRunner({ fixture: "typescript-ops" });
  client = env.client;
});

afterAll(async () => {
  // No temporary or backup file of an apply is left behind.
  if (env) expect(Object.keys(snapshot()).filter((file) => file.includes(".lspmesh-"))).toEqual([]);
  await env?.close();
});

describe("applied edits land exactly and the servers see them", () => {
  test("rename of a CJK identifier, applied: the file changes as the edit says; definition and diagnostics follow", async () => {
    const before = read("src/main.ts");
    const answer = await client.renameSymbol({
      workspace: ws,
      at: symbol("src/main.ts", "正方形", 4),
      newName: "square",
      apply: true,
    });
    expect(answer.applied).toBe(true);
    expect(read("src/main.ts")).toBe(before.replaceAll("正方形", "square"));
    // `square` on line 6 now starts at column 48, as the edit said (6:48-6:51 became `square`).
    // The server has the new text: the definition's range is six code points long.
    const definition = await client.findDefinition({ workspace: ws, at: at("src/main.ts", 6, 48) });
    expect(definition.locations.map((l) => `${l.file}:${span(l.range)}`)).toEqual(["src/main.ts:4:7-4:13"]);
    const diagnostics = await client.diagnostics({ workspace: ws, files: ["src/main.ts"], waitMs: 2_000 });
    expect(diagnostics.files[0]?.contentSha256).toBe(sha256(read("src/main.ts")));
    expect(diagnostics.files[0]?.diagnostics).toEqual([]);
  });

  test("file rename, applied: imports updated, file moved, and the servers follow the move", async () => {
    // src/future.ts already imports the new path: its error goes away once the file is there.
    const unresolved = await client.diagnostics({ workspace: ws, files: ["src/future.ts"], waitMs: 10_000 });
    expect(unresolved.files[0]?.diagnostics.map((d) => [d.code, span(d.range)])).toEqual([["2307", "1:23-1:32"]]);
    const moved = read("src/text/shout.ts");
    const main = read("src/main.ts");
    const answer = await client.renameFile({
      workspace: ws,
      file: "src/text/shout.ts",
      newFile: "src/shout.ts",
      apply: true,
    });
    expect(answer.applied).toBe(true);
    expect(existsSync(join(env.dir, "src/text/shout.ts"))).toBe(false);
    expect(read("src/shout.ts")).toBe(moved);
    expect(read("src/main.ts")).toBe(main.replace('"./text/shout"', '"./shout"'));
    const definition = await client.findDefinition({ workspace: ws, at: symbol("src/main.ts", "shout", 6) });
    expect(definition.locations.map((l) => `${l.file}:${span(l.range)}`)).toEqual(["src/shout.ts:2:17-2:22"]);
    const main_ = await client.diagnostics({ workspace: ws, files: ["src/main.ts"], waitMs: 2_000 });
    // main.ts was clean and stays clean: typescript-language-server may publish nothing for it, and
    // then the answer says its diagnostics are not fresh (older content's hash), never passing them off.
    const mainDiagnostics = main_.files[0]!;
    expect(mainDiagnostics.diagnostics).toEqual([]);
    if (mainDiagnostics.fresh) expect(mainDiagnostics.contentSha256).toBe(sha256(read("src/main.ts")));
    else expect(main_.status?.partial).toBe(true);
    // future.ts did not change: tsserver re-checks it once its own file watcher sees the new
    // file, and only then publishes; ask until it has.
    const future = await waitFor("tsserver to check future.ts again", async () => {
      const file = (await client.diagnostics({ workspace: ws, files: ["src/future.ts"], waitMs: 500 })).files[0];
      if (file?.diagnostics.length) throw new Error(`future.ts still has ${file.diagnostics.map((d) => d.code)}`);
      return file;
    });
    expect(future.diagnostics).toEqual([]);
  });

  test("formatting, applied, writes the server's formatting (the language's options: 2 spaces)", async () => {
    const answer = await client.formatDocument({ workspace: ws, file: "src/unformatted.ts", apply: true });
    expect(answer.applied).toBe(true);
    expect(read("src/unformatted.ts")).toBe("export function add(a: number, b: number) {\n  return a + b\n}\n");
    const again = await client.formatDocument({ workspace: ws, file: "src/unformatted.ts" });
    expect(again.edit?.files).toEqual([]);
  });

  test("a quick fix applied by its exact title fixes the diagnostic it was offered for", async () => {
    const broken = await client.diagnostics({ workspace: ws, files: ["src/needsImport.ts"], waitMs: 10_000 });
    expect(broken.files[0]?.diagnostics.map((d) => d.code)).toEqual(["2304"]);
    const answer = await client.codeActions({
      workspace: ws,
      file: "src/needsImport.ts",
      range: { start: { line: 1, column: 25 } },
      kinds: ["quickfix"],
      applyTitle: 'Add import from "./geometry"',
    });
    expect(answer.applied).toBe(true);
    expect(read("src/needsImport.ts")).toBe(
      'import { Square } from "./geometry";\n\nexport const unit = new Square(1);\n',
    );
    const fixed = await client.diagnostics({ workspace: ws, files: ["src/needsImport.ts"], waitMs: 10_000 });
    expect(fixed.files[0]).toMatchObject({ fresh: true, version: broken.files[0]!.version + 1, diagnostics: [] });
  });

  test("a previewed edit applied later with ApplyWorkspaceEdit, including a created file", async () => {
    const preview = await client.renameSymbol({
      workspace: ws,
      at: symbol("src/geometry.ts", "measure", 21),
      newName: "areaOf",
    });
    const geometry = read("src/geometry.ts");
    const answer = await client.applyWorkspaceEdit({
      workspace: ws,
      edit: {
        files: [
          ...(preview.edit?.files ?? []),
          {
            file: "src/notes/todo.ts",
            edits: [
              { range: { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } }, newText: "// 📝 später\n" },
            ],
          },
        ],
        operations: [{ kind: FileOperation_Kind.CREATE, file: "src/notes/todo.ts" }],
      },
    });
    expect(answer.applied).toBe(true);
    expect(read("src/geometry.ts")).toBe(geometry.replaceAll("measure", "areaOf"));
    expect(read("src/notes/todo.ts")).toBe("// 📝 später\n");
    const definition = await client.findDefinition({ workspace: ws, at: symbol("src/geometry.ts", "areaOf", 17) });
    expect(definition.locations.map((l) => `${l.file}:${span(l.range)}`)).toEqual(["src/geometry.ts:21:17-21:23"]);
  });
});

describe("edits that must not land change nothing", () => {
  test("a stale preview (the file changed on disk since) is rejected with STALE_EDIT", async () => {
    const preview = await client.renameSymbol({
      workspace: ws,
      at: symbol("src/geometry.ts", "totalArea", 16),
      newName: "sumOfAreas",
    });
    expect(preview.edit?.files.map((f) => f.file).sort()).toEqual(["src/geometry.ts", "src/main.ts"]);
    writeFileSync(join(env.dir, "src/geometry.ts"), `// edited meanwhile\n${read("src/geometry.ts")}`);
    const before = snapshot();
    const error = await failure(client.applyWorkspaceEdit({ workspace: ws, edit: preview.edit }));
    expect([error.code, error.lspmeshCode]).toEqual([GrpcStatus.ABORTED, "STALE_EDIT"]);
    expect(error.details).toMatch(/src\/geometry.ts changed after the edit was computed/);
    expect(snapshot()).toEqual(before);
  });

  test("a version that is not the open document's is rejected", async () => {
    await client.hover({ workspace: ws, at: at("src/main.ts", 1, 10) });
    const before = snapshot();
    const error = await failure(
      client.applyWorkspaceEdit({
        workspace: ws,
        edit: {
          files: [
            {
              file: "src/main.ts",
              edits: [{ range: { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } }, newText: "// x\n" }],
              expectedVersion: 99,
            },
          ],
        },
      }),
    );
    expect([error.code, error.lspmeshCode]).toEqual([GrpcStatus.ABORTED, "STALE_EDIT"]);
    expect(snapshot()).toEqual(before);
  });

  test.each([
    ["a text edit of a file outside", { file: "../outside/secret.ts" }, []],
    ["a text edit through a symlink to outside", { file: "src/leak.ts" }, []],
    [
      "a rename to outside",
      undefined,
      [{ kind: FileOperation_Kind.RENAME, file: "src/main.ts", newFile: "../moved.ts" }],
    ],
    ["a created file outside", undefined, [{ kind: FileOperation_Kind.CREATE, file: "/tmp/lspmesh-created.ts" }]],
  ])(
    "%s is refused with OUTSIDE_WORKSPACE, and the edit's other files are untouched",
    async (_name, outsideFile, operations) => {
      const before = snapshot();
      const secret = readFileSync(join(env.outside!, "secret.ts"), "utf8");
      const insert = { range: { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } }, newText: "// x\n" };
      const error = await failure(
        client.applyWorkspaceEdit({
          workspace: ws,
          edit: {
            files: [
              { file: "src/main.ts", edits: [insert] },
              ...(outsideFile ? [{ ...outsideFile, edits: [insert] }] : []),
            ],
            operations,
          },
        }),
      );
      expect([error.code, error.lspmeshCode]).toEqual([GrpcStatus.INVALID_ARGUMENT, "OUTSIDE_WORKSPACE"]);
      expect(error.details).not.toContain(env.outside!);
      expect(snapshot()).toEqual(before);
      expect(readFileSync(join(env.outside!, "secret.ts"), "utf8")).toBe(secret);
      expect(existsSync("/tmp/lspmesh-created.ts")).toBe(false);
    },
  );

  test("moving a relative symlink so that it would point outside the workspace is refused; the link stays", async () => {
    // src/deep/alias.ts → ../main.ts (inside); moved to the root it would name ../main.ts, outside.
    mkdirSync(join(env.dir, "src/deep"), { recursive: true });
    symlinkSync("../main.ts", join(env.dir, "src/deep/alias.ts"));
    try {
      const error = await failure(
        client.applyWorkspaceEdit({
          workspace: ws,
          edit: {
            files: [],
            operations: [{ kind: FileOperation_Kind.RENAME, file: "src/deep/alias.ts", newFile: "alias.ts" }],
          },
        }),
      );
      expect(error.lspmeshCode).toBe("INVALID_ARGUMENT");
      expect(error.details).toMatch(
        /symbolic link to '\.\.\/main\.ts'; moved to 'alias\.ts' it would point outside the workspace/,
      );
      expect(lstatSync(join(env.dir, "src/deep/alias.ts")).isSymbolicLink()).toBe(true);
      expect(existsSync(join(env.dir, "alias.ts"))).toBe(false);
      // Moved where it still points inside, it moves as a link.
      await client.applyWorkspaceEdit({
        workspace: ws,
        edit: {
          files: [],
          operations: [{ kind: FileOperation_Kind.RENAME, file: "src/deep/alias.ts", newFile: "src/other/alias.ts" }],
        },
      });
      expect(readlinkSync(join(env.dir, "src/other/alias.ts"))).toBe("../main.ts");
    } finally {
      rmSync(join(env.dir, "src/deep"), { recursive: true, force: true });
      rmSync(join(env.dir, "src/other"), { recursive: true, force: true });
    }
  });

  test("a failure after files were already replaced rolls every file back", async () => {
    const before = snapshot();
    // The rename target's name is longer than any filesystem allows: it fails only when the
    // move is made, after the text edit of src/main.ts was written.
    const error = await failure(
      client.applyWorkspaceEdit({
        workspace: ws,
        edit: {
          files: [
            {
              file: "src/main.ts",
              edits: [{ range: { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } }, newText: "// x\n" }],
            },
          ],
          operations: [
            { kind: FileOperation_Kind.RENAME, file: "src/unformatted.ts", newFile: `src/${"n".repeat(300)}.ts` },
          ],
        },
      }),
    );
    expect(error.lspmeshCode).toBe("UNAVAILABLE");
    expect(error.details).toMatch(/could not be written \(ENAMETOOLONG\); no file was changed/);
    expect(snapshot()).toEqual(before);
  });

  test("file operations that collide are refused before anything is written", async () => {
    const before = snapshot();
    const collide = await failure(
      client.applyWorkspaceEdit({
        workspace: ws,
        edit: {
          operations: [
            { kind: FileOperation_Kind.CREATE, file: "src/extra.ts" },
            { kind: FileOperation_Kind.RENAME, file: "src/unformatted.ts", newFile: "src/extra.ts" },
          ],
        },
      }),
    );
    expect([collide.code, collide.lspmeshCode]).toEqual([GrpcStatus.INVALID_ARGUMENT, "INVALID_ARGUMENT"]);
    expect(collide.details).toBe("the edit puts two files at 'src/extra.ts'; nothing was changed");
    const twice = await failure(
      client.applyWorkspaceEdit({
        workspace: ws,
        edit: {
          operations: [
            { kind: FileOperation_Kind.RENAME, file: "src/unformatted.ts", newFile: "src/a.ts" },
            { kind: FileOperation_Kind.DELETE, file: "src/unformatted.ts" },
          ],
        },
      }),
    );
    expect(twice.details).toBe("the edit moves or deletes 'src/unformatted.ts' twice; nothing was changed");
    expect(snapshot()).toEqual(before);
  });

  test("nothing under .git is written, moved or deleted (a .git/config can make git run a command)", async () => {
    const before = snapshot();
    const refusals = await Promise.all([
      failure(
        client.applyWorkspaceEdit({
          workspace: ws,
          edit: { operations: [{ kind: FileOperation_Kind.CREATE, file: ".git/config" }] },
        }),
      ),
      failure(
        client.applyWorkspaceEdit({
          workspace: ws,
          edit: {
            operations: [
              { kind: FileOperation_Kind.RENAME, file: "src/unformatted.ts", newFile: "sub/.Git/hooks/post-checkout" },
            ],
          },
        }),
      ),
    ]);
    for (const refused of refusals) {
      expect([refused.code, refused.lspmeshCode]).toEqual([GrpcStatus.INVALID_ARGUMENT, "INVALID_ARGUMENT"]);
      expect(refused.details).toMatch(
        /is inside a \.git folder, which write tools do not change.*LSPMESH_ALLOW_GIT_WRITES=1/,
      );
    }
    expect(snapshot()).toEqual(before);
  });

  test("an operator who allows it (allowGitWrites, LSPMESH_ALLOW_GIT_WRITES=1) can write under .git", async () => {
    await using allowing = await startFixtureRunner({
      files: { "src/a.ts": "export const a = 1;\n" },
      allowGitWrites: true,
    });
    await allowing.client.applyWorkspaceEdit({
      workspace: ws,
      edit: { operations: [{ kind: FileOperation_Kind.CREATE, file: ".git/info/exclude" }] },
    });
    expect(allowing.read(".git/info/exclude")).toBe("");
  });

  test("overlapping edits and positions past a line's end are refused", async () => {
    const before = snapshot();
    const edit = (startColumn: number, endColumn: number) => ({
      range: { start: { line: 1, column: startColumn }, end: { line: 1, column: endColumn } },
      newText: "x",
    });
    const overlap = await failure(
      client.applyWorkspaceEdit({
        workspace: ws,
        edit: { files: [{ file: "src/main.ts", edits: [edit(1, 5), edit(3, 6)] }] },
      }),
    );
    expect(overlap.details).toMatch(/edits of src\/main.ts overlap/);
    const past = await failure(
      client.applyWorkspaceEdit({ workspace: ws, edit: { files: [{ file: "src/main.ts", edits: [edit(500, 501)] }] } }),
    );
    expect([past.code, past.lspmeshCode]).toEqual([GrpcStatus.INVALID_ARGUMENT, "INVALID_ARGUMENT"]);
    expect(snapshot()).toEqual(before);
  });
});
