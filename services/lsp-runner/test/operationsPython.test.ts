// The operations through the runner's gRPC service against a real pyright, once Python is a
// built-in language. Written for pyright's own capabilities: it completes, helps with signatures,
// renames (with prepareRename) and answers call hierarchies; it has no formatting, inlay hints,
// type hierarchy or workspace/willRenameFiles, which must come back UNSUPPORTED.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GrpcStatus } from "@lspmesh/grpc";
import { HierarchyRequest_Direction } from "@lspmesh/proto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LanguageRegistry } from "./runnerInternals.js";
import { at, editLines, failure, span, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner } from "./support/fixtureRunner.js";

const languages = new LanguageRegistry();
const ws = { tenant: "local", workspace: "default" };

// src/main.py line 5: `名前 = "🎉🎉"; größe = total_area([Square(3), 正方形])`
describe.skipIf(!languages.get("python"))("python operations (pyright)", () => {
  let env: FixtureRunner;
  let client: FixtureRunner["client"];
  const read = (file: string) => env.read(file);

  beforeAll(async () => {
    env = await startFixtureRunner({ fixture: "python-ops", languages });
    client = env.client;
  });

  afterAll(() => env?.close());

  test("completion of a member on a line with CJK names, resolved", async () => {
    // Line 6 column 39 is after `正方形.are`.
    const answer = await client.completions({ workspace: ws, at: at("src/main.py", 6, 39), resolve: true });
    expect(answer.items.map((i) => [i.label, i.kind, i.resolved])).toEqual([["area", "method", true]]);
    expect(answer.items[0]?.documentation).toContain("def area() -> float");
  });

  test("signature help inside a call after emoji", async () => {
    const answer = await client.signatureHelp({ workspace: ws, at: at("src/main.py", 5, 35) });
    expect(answer).toMatchObject({
      signatures: ["(shapes: list[Shape]) -> float"],
      activeSignature: 0,
      activeParameter: 0,
      activeParameterLabel: "shapes: list[Shape]",
      documentation: "Sums the areas of shapes.",
    });
  });

  test("incoming calls two levels deep, call sites exact on the line with emoji", async () => {
    const answer = await client.callHierarchy({
      workspace: ws,
      at: symbol("src/geometry.py", "measure", 26),
      direction: HierarchyRequest_Direction.INCOMING,
      depth: 2,
    });
    expect([answer.root?.name, span(answer.root?.location?.range)]).toEqual(["measure", "26:5-26:12"]);
    const caller = answer.root?.children[0];
    expect([caller?.name, caller?.callSitesFile, caller?.callSites.map(span)]).toEqual([
      "total_area",
      "src/geometry.py",
      ["23:16-23:23"],
    ]);
    expect(caller?.children.map((c) => [c.name, c.callSitesFile, c.callSites.map(span)])).toEqual([
      ["(module) main.py", "src/main.py", ["5:20-5:30"]],
    ]);
  });

  test("outgoing calls into the standard library are left out and counted as such, not as withheld", async () => {
    const answer = await client.callHierarchy({
      workspace: ws,
      at: symbol("src/geometry.py", "total_area", 21),
      direction: HierarchyRequest_Direction.OUTGOING,
      depth: 1,
    });
    // `sum` and the like are typeshed's (pyright's bundled stubs): left out; `measure` is the workspace's.
    expect(answer.root?.children.map((c) => c.name)).toEqual(["measure"]);
    expect(answer.status?.partial).toBe(false);
    expect(answer.status?.note).toMatch(
      /^\d+ items? in libraries outside the workspace left out \(hierarchies show the workspace's own code\)$/,
    );
  });

  test("a call pyright reaches twice (a static method called through self) is one call site", async () => {
    writeFileSync(
      join(env.dir, "src/padding.py"),
      "class Padding:\n    def __init__(self, pad: int) -> None:\n        self.top = self.unpack(pad)\n\n    @staticmethod\n    def unpack(pad: int) -> int:\n        return pad\n",
    );
    const answer = await client.callHierarchy({
      workspace: ws,
      at: symbol("src/padding.py", "unpack", 6),
      direction: HierarchyRequest_Direction.INCOMING,
      depth: 1,
    });
    expect(answer.root?.children.map((c) => [c.name, c.callSites.map(span)])).toEqual([["__init__", ["3:25-3:31"]]]);
  });

  test("rename preview across files, with prepareRename's range and placeholder", async () => {
    const answer = await client.renameSymbol({
      workspace: ws,
      at: symbol("src/geometry.py", "total_area", 21),
      newName: "sum_of_areas",
    });
    expect(answer.rename?.placeholder).toBe("total_area");
    expect(span(answer.rename?.range)).toBe("21:5-21:15");
    expect(editLines(answer.edit).sort()).toEqual(
      [
        "src/geometry.py 21:5-21:15 → sum_of_areas",
        "src/main.py 1:30-1:40 → sum_of_areas",
        "src/main.py 5:20-5:30 → sum_of_areas",
      ].sort(),
    );
  });

  test("rename of a CJK identifier, applied: the file changes as the edit says and definition follows", async () => {
    const before = read("src/main.py");
    const answer = await client.renameSymbol({
      workspace: ws,
      at: symbol("src/main.py", "正方形", 4),
      newName: "square",
      apply: true,
    });
    expect(editLines(answer.edit)).toEqual([
      "src/main.py 4:1-4:4 → square",
      "src/main.py 5:43-5:46 → square",
      "src/main.py 6:33-6:36 → square",
    ]);
    expect(answer.applied).toBe(true);
    expect(read("src/main.py")).toBe(before.replaceAll("正方形", "square"));
    const definition = await client.findDefinition({ workspace: ws, at: at("src/main.py", 6, 33) });
    expect(definition.locations.map((l) => `${l.file}:${span(l.range)}`)).toEqual(["src/main.py:4:1-4:7"]);
  });

  test("rename to an invalid identifier or a keyword, and rename of nothing, are INVALID_ARGUMENT", async () => {
    for (const newName of ["1 bad", "lambda"]) {
      const error = await failure(
        client.renameSymbol({ workspace: ws, at: symbol("src/geometry.py", "measure", 26), newName }),
      );
      expect([error.code, error.lspmeshCode]).toEqual([GrpcStatus.INVALID_ARGUMENT, "INVALID_ARGUMENT"]);
      expect(error.details).toMatch(/cannot rename 'measure'/);
    }
    // Line 23 column 2 is indentation.
    const nothing = await failure(
      client.renameSymbol({ workspace: ws, at: at("src/geometry.py", 23, 2), newName: "x" }),
    );
    expect(nothing.lspmeshCode).toBe("INVALID_ARGUMENT");
    expect(nothing.details).toMatch(/nothing can be renamed at src\/geometry.py:23:2/);
  });

  test("code actions are pyright's answer: none for an undefined name", async () => {
    const answer = await client.codeActions({
      workspace: ws,
      file: "src/needs_import.py",
      range: { start: { line: 1, column: 8 } },
    });
    expect(answer.actions).toEqual([]);
    expect(answer.status?.partial).toBe(false);
  });

  test.each([
    ["formatting", () => client.formatDocument({ workspace: ws, file: "src/main.py" }), /textDocument\/formatting/],
    ["inlay hints", () => client.inlayHints({ workspace: ws, file: "src/main.py" }), /textDocument\/inlayHint/],
    [
      "type hierarchy",
      () =>
        client.typeHierarchy({
          workspace: ws,
          at: symbol("src/geometry.py", "Square", 11),
          direction: HierarchyRequest_Direction.OUTGOING,
          depth: 1,
        }),
      /type hierarchy/,
    ],
    [
      "file rename with import updates",
      () => client.renameFile({ workspace: ws, file: "src/text/shout.py", newFile: "src/loud.py", apply: true }),
      /workspace\/willRenameFiles .*; move it with apply_workspace_edit \(operations: \[\{ kind: "rename"/,
    ],
  ])("%s is UNSUPPORTED, naming the server", async (_name, call, what) => {
    const error = await failure(call());
    expect([error.code, error.lspmeshCode]).toEqual([GrpcStatus.UNIMPLEMENTED, "UNSUPPORTED"]);
    expect(error.details).toMatch(/the python language server \(.+\) does not support/);
    expect(error.details).toMatch(what);
    expect(read("src/text/shout.py")).toContain("def shout");
  });
});
