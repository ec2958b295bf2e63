// Completion, signature help, inlay hints, hierarchies and edit previews through the runner's gRPC
// service against a real typescript-language-server. Nothing here writes to the workspace.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GrpcStatus } from "@lspmesh/grpc";
import { HierarchyRequest_Direction } from "@lspmesh/proto";
import { fixturePath } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { at, editLines, failure, span, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner } from "./support/fixtureRunner.js";

const ws = { tenant: "local", workspace: "default" };
let env: FixtureRunner;
let client: FixtureRunner["client"];
let before: Record<string, string>;

beforeAll(async () => {
  env = await startFixtureRunner({ fixture: "typescript-ops" });
  client = env.client;
  before = env.snapshot();
});

afterAll(async () => {
  // Previews never touch the disk.
  if (env) expect(env.snapshot()).toEqual(before);
  await env?.close();
});

// src/main.ts line 5: `const 名前 = "🎉🎉"; const größe = totalArea([new Square(3), 正方形]);`
// CJK, two astral emoji (two UTF-16 units each) and umlauts come before every position on it.

describe("assistance", () => {
  test("completion after a member access on a line with CJK names, narrowed and resolved", async () => {
    // Line 6 column 55 is after `正方形.are` (columns count code points: 正方形 is three).
    const answer = await client.completions({ workspace: ws, at: at("src/main.ts", 6, 55), resolve: true });
    expect(answer.items.map((i) => [i.label, i.kind, i.detail, i.insertText, i.resolved])).toEqual([
      ["area", "method", "(method) Square.area(): number", "area", true],
    ]);
    expect(answer.total).toBe(1);
    expect(answer.status?.partial).toBe(false);
  });

  test("completion right after the dot lists the members; limit keeps the first, total counts all", async () => {
    const answer = await client.completions({ workspace: ws, at: at("src/main.ts", 6, 52) });
    expect(answer.items.map((i) => [i.label, i.kind, i.resolved])).toEqual([
      ["area", "method", false],
      ["side", "field", false],
    ]);
    const limited = await client.completions({ workspace: ws, at: at("src/main.ts", 6, 52), limit: 1 });
    expect(limited.items.map((i) => i.label)).toEqual(["area"]);
    expect(limited.total).toBe(2);
  });

  test("signature help inside a call after emoji", async () => {
    // Column 43 is inside `totalArea(` … on line 5.
    const answer = await client.signatureHelp({ workspace: ws, at: at("src/main.ts", 5, 43) });
    expect(answer).toMatchObject({
      signatures: ["totalArea(shapes: Shape[]): number"],
      activeSignature: 0,
      activeParameter: 0,
      activeParameterLabel: "shapes: Shape[]",
      documentation: "Sums the areas of shapes.",
    });
    const inner = await client.signatureHelp({ workspace: ws, at: at("src/main.ts", 5, 54) });
    expect(inner.signatures).toEqual(["Square(side: number): Square"]);
    expect(inner.activeParameterLabel).toBe("side: number");
    // Inside `正方形.area()`: a signature without parameters has no active one.
    const none = await client.signatureHelp({ workspace: ws, at: at("src/main.ts", 6, 57) });
    expect(none).toMatchObject({ signatures: ["area(): number"], activeParameter: -1, activeParameterLabel: "" });
  });

  test("inlay hints for a range land at exact code-point columns", async () => {
    const answer = await client.inlayHints({
      workspace: ws,
      file: "src/main.ts",
      range: { start: { line: 5, column: 1 }, end: { line: 6, column: 1 } },
    });
    expect(answer.hints.map((h) => [h.position?.line, h.position?.column, h.kind, h.label])).toEqual([
      [5, 29, "type", ": number"],
      [5, 42, "parameter", "shapes:"],
      [5, 54, "parameter", "side:"],
    ]);
  });

  test("inlay hints without a range cover the whole file", async () => {
    const answer = await client.inlayHints({ workspace: ws, file: "src/main.ts" });
    expect(answer.hints.map((h) => `${h.position?.line}:${h.position?.column} ${h.label}`)).toEqual([
      "4:24 side:",
      "5:29 : number",
      "5:42 shapes:",
      "5:54 side:",
      "6:21 : string",
      "6:30 message:",
    ]);
  });
});

describe("hierarchies", () => {
  test("incoming calls two levels deep, with call sites in the caller's file", async () => {
    const answer = await client.callHierarchy({
      workspace: ws,
      at: symbol("src/geometry.ts", "measure", 21),
      direction: HierarchyRequest_Direction.INCOMING,
      depth: 2,
    });
    const root = answer.root!;
    expect([root.name, root.location?.file, span(root.location?.range)]).toEqual([
      "measure",
      "src/geometry.ts",
      "21:17-21:24",
    ]);
    const caller = root.children[0]!;
    expect(root.children).toHaveLength(1);
    expect([caller.name, caller.callSitesFile, caller.callSites.map(span)]).toEqual([
      "totalArea",
      "src/geometry.ts",
      ["17:46-17:53"],
    ]);
    // Module-level code of main.ts calls totalArea on the line with emoji.
    expect(caller.children.map((c) => [c.name, c.location?.file, c.callSitesFile, c.callSites.map(span)])).toEqual([
      ["main.ts", "src/main.ts", "src/main.ts", ["5:32-5:41"]],
    ]);
    expect(caller.children[0]?.children).toEqual([]);
    // One project (tsconfig.json includes every file): nothing was left unsearched.
    expect(answer.status?.partial).toBe(false);
  });

  test("outgoing calls leave out callees in libraries outside the workspace and say so", async () => {
    const answer = await client.callHierarchy({
      workspace: ws,
      at: symbol("src/geometry.ts", "totalArea", 16),
      direction: HierarchyRequest_Direction.OUTGOING,
      depth: 1,
    });
    // shapes.reduce lives in TypeScript's lib, outside the workspace.
    expect(answer.root?.children.map((c) => [c.name, c.callSitesFile, c.callSites.map(span)])).toEqual([
      ["measure", "src/geometry.ts", ["17:46-17:53"]],
    ]);
    expect(answer.status?.note).toBe(
      "1 item in libraries outside the workspace left out (hierarchies show the workspace's own code)",
    );
    expect(answer.status?.partial).toBe(false);
  });

  test("depth outside 1–3 and a missing direction are refused", async () => {
    const deep = await failure(
      client.callHierarchy({
        workspace: ws,
        at: symbol("src/geometry.ts", "measure", 21),
        direction: HierarchyRequest_Direction.INCOMING,
        depth: 4,
      }),
    );
    expect([deep.code, deep.lspmeshCode]).toEqual([GrpcStatus.INVALID_ARGUMENT, "INVALID_ARGUMENT"]);
    expect(deep.details).toMatch(/give 1 to 3/);
    const undirected = await failure(
      client.callHierarchy({ workspace: ws, at: symbol("src/geometry.ts", "measure", 21), depth: 1 }),
    );
    expect(undirected.details).toMatch(/give a direction/);
  });

  test("type hierarchy is UNSUPPORTED by typescript-language-server, naming the server", async () => {
    const error = await failure(
      client.typeHierarchy({
        workspace: ws,
        at: symbol("src/geometry.ts", "Square", 7),
        direction: HierarchyRequest_Direction.OUTGOING,
        depth: 1,
      }),
    );
    expect([error.code, error.lspmeshCode]).toEqual([GrpcStatus.UNIMPLEMENTED, "UNSUPPORTED"]);
    expect(error.details).toMatch(/typescript language server .* does not support type hierarchy/);
  });
});

describe("edit previews", () => {
  test("rename of a CJK identifier: prepareRename's range, then every occurrence, nothing written", async () => {
    const answer = await client.renameSymbol({
      workspace: ws,
      at: symbol("src/main.ts", "正方形", 4),
      newName: "square",
    });
    expect(answer.applied).toBe(false);
    expect(answer.rename).toMatchObject({ placeholder: "正方形" });
    expect(span(answer.rename?.range)).toBe("4:7-4:10");
    expect(editLines(answer.edit)).toEqual([
      "src/main.ts 4:7-4:10 → square",
      "src/main.ts 5:58-5:61 → square",
      "src/main.ts 6:48-6:51 → square",
    ]);
    expect(answer.edit?.files[0]).toMatchObject({ expectedVersion: 1 });
    expect(answer.edit?.files[0]?.expectedSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  test("rename across files lists each file's edits", async () => {
    const answer = await client.renameSymbol({
      workspace: ws,
      at: symbol("src/geometry.ts", "totalArea", 16),
      newName: "sumOfAreas",
    });
    expect(editLines(answer.edit).sort()).toEqual(
      [
        "src/geometry.ts 16:17-16:26 → sumOfAreas",
        "src/main.ts 1:18-1:27 → sumOfAreas",
        "src/main.ts 5:32-5:41 → sumOfAreas",
      ].sort(),
    );
  });

  test("rename to an invalid identifier or a reserved word is refused before the server is asked", async () => {
    for (const newName of ["1 bad", "a-b", "class", ""]) {
      const error = await failure(
        client.renameSymbol({ workspace: ws, at: symbol("src/main.ts", "正方形", 4), newName }),
      );
      expect([error.code, error.lspmeshCode]).toEqual([GrpcStatus.INVALID_ARGUMENT, "INVALID_ARGUMENT"]);
      expect(error.details).toMatch(/cannot rename '正方形'/);
    }
  });

  test("rename where the server says nothing can be renamed gives its reason", async () => {
    // Line 1 column 2 is inside the keyword `import`.
    const error = await failure(client.renameSymbol({ workspace: ws, at: at("src/main.ts", 1, 2), newName: "x" }));
    expect([error.code, error.lspmeshCode]).toEqual([GrpcStatus.INVALID_ARGUMENT, "INVALID_ARGUMENT"]);
    expect(error.details).toBe("nothing can be renamed at src/main.ts:1:2: You cannot rename this element.");
  });

  test("file rename preview: the server's import updates plus the move", async () => {
    const answer = await client.renameFile({ workspace: ws, file: "src/text/shout.ts", newFile: "src/loud/shout.ts" });
    expect(answer.applied).toBe(false);
    expect(editLines(answer.edit)).toEqual(["src/main.ts 2:24-2:36 → ./loud/shout"]);
    expect(answer.edit?.operations.map((o) => [o.kind, o.file, o.newFile])).toEqual([
      [2, "src/text/shout.ts", "src/loud/shout.ts"],
    ]);
  });

  test("file rename to an existing file or outside the workspace is refused", async () => {
    const existing = await failure(
      client.renameFile({ workspace: ws, file: "src/text/shout.ts", newFile: "src/main.ts" }),
    );
    expect([existing.code, existing.lspmeshCode]).toEqual([GrpcStatus.INVALID_ARGUMENT, "INVALID_ARGUMENT"]);
    expect(existing.details).toMatch(/already exists/);
    for (const newFile of ["../outside/shout.ts", "/tmp/shout.ts"]) {
      const outside = await failure(client.renameFile({ workspace: ws, file: "src/text/shout.ts", newFile }));
      expect(outside.lspmeshCode).toBe("OUTSIDE_WORKSPACE");
      expect(outside.details).not.toContain(env.outside!);
    }
  });

  test("formatting preview lists the server's edits for the file", async () => {
    const answer = await client.formatDocument({ workspace: ws, file: "src/unformatted.ts" });
    expect(answer.applied).toBe(false);
    expect(answer.edit?.files.map((f) => f.file)).toEqual(["src/unformatted.ts"]);
    expect(answer.edit?.files[0]?.edits.length).toBeGreaterThan(0);
    const formatted = await client.formatDocument({ workspace: ws, file: "src/text/shout.ts" });
    expect(formatted.edit?.files).toEqual([]);
  });

  test("code actions for a missing name: the quick fix with its edit, computed from the diagnostics", async () => {
    const answer = await client.codeActions({
      workspace: ws,
      file: "src/needsImport.ts",
      range: { start: { line: 1, column: 25 } },
      kinds: ["quickfix"],
    });
    expect(answer.applied).toBe(false);
    expect(answer.actions.map((a) => [a.title, a.kind, a.preferred])).toEqual([
      ['Add import from "./geometry"', "quickfix", true],
    ]);
    expect(editLines(answer.actions[0]?.edit)).toEqual([
      'src/needsImport.ts 1:1-1:1 → import { Square } from "./geometry";\n\n',
    ]);
  });

  test("kinds filter the actions listed: no quick fix where only organize imports is asked", async () => {
    const at = { workspace: ws, file: "src/needsImport.ts", range: { start: { line: 1, column: 25 } } };
    const all = await client.codeActions({ ...at, kinds: [] });
    expect(all.actions.some((action) => action.kind === "quickfix")).toBe(true);
    const organize = await client.codeActions({ ...at, kinds: ["source.organizeImports"] });
    expect(organize.actions.map((action) => action.kind)).not.toContain("quickfix");
    for (const action of organize.actions) expect(action.kind).toMatch(/^source\.organizeImports/);
  });

  // Writes nothing: afterAll compares the whole tree with its snapshot.
  test("a refactoring comes with tsserver's edit in place of its command", async () => {
    const answer = await client.codeActions({
      workspace: ws,
      file: "src/geometry.ts",
      range: { start: { line: 22, column: 10 }, end: { line: 22, column: 22 } },
      kinds: ["refactor.extract"],
    });
    const constant = answer.actions.find((a) => a.kind === "refactor.extract.constant");
    expect(constant).toMatchObject({ command: "", disabledReason: "" });
    const edits = constant?.edit?.files.flatMap((file) => file.edits.map((edit) => `${file.file} ${edit.newText}`));
    expect(edits).toEqual(["src/geometry.ts   const newLocal = shape.area();\n", "src/geometry.ts newLocal"]);
  });

  test("applying an action that changes nothing writes nothing and says so", async () => {
    const answer = await client.codeActions({
      workspace: ws,
      file: "src/main.ts",
      range: { start: { line: 1, column: 1 } },
      kinds: ["source.fixAll"],
      applyTitle: "Fix all fixable JS/TS issues",
    });
    expect(answer.actions.map((a) => [a.title, a.kind, a.edit?.files.length])).toEqual([
      ["Fix all fixable JS/TS issues", "source.fixAll.ts", 0],
    ]);
    expect(answer.applied).toBe(false);
    expect(answer.status?.note).toBe("'Fix all fixable JS/TS issues' changes nothing here; nothing was written");
  });

  test("applying a code action title that is not offered names the available ones", async () => {
    const error = await failure(
      client.codeActions({
        workspace: ws,
        file: "src/needsImport.ts",
        range: { start: { line: 1, column: 25 } },
        kinds: ["quickfix"],
        applyTitle: "Add import from elsewhere",
      }),
    );
    expect([error.code, error.lspmeshCode]).toEqual([GrpcStatus.NOT_FOUND, "NOT_FOUND"]);
    expect(error.details).toContain(`available: 'Add import from "./geometry"'`);
  });
});

describe("document highlights", () => {
  // Columns in code points: line 5 has two astral emoji (two UTF-16 units each) before 正方形.
  const main = readFileSync(join(fixturePath("typescript-ops"), "src/main.ts"), "utf8").split("\n");
  const columnsOf = (line: number, name: string) => {
    const text = main[line - 1]!;
    const start = [...text.slice(0, text.indexOf(name))].length + 1;
    return `${line}:${start}-${line}:${start + [...name].length}`;
  };

  test("a constant's declaration and uses, as typescript-language-server kinds them, each range in code points", async () => {
    const answer = await client.documentHighlights({ workspace: ws, at: symbol("src/main.ts", "正方形", 4) });
    expect(answer.highlights.map((h) => `${span(h.range)} ${h.kind}`)).toEqual([
      // typescript-language-server reports a const's declaration as read (only assignments are write).
      `${columnsOf(4, "正方形")} read`,
      `${columnsOf(5, "正方形")} read`,
      `${columnsOf(6, "正方形")} read`,
    ]);
    expect(answer.status?.partial).toBe(false);
  });

  test("a position on no symbol has no highlights, and the answer says it is complete", async () => {
    const answer = await client.documentHighlights({ workspace: ws, at: at("src/main.ts", 3, 1) });
    expect(answer.highlights).toEqual([]);
    expect(answer.status?.partial).toBe(false);
  });
});
