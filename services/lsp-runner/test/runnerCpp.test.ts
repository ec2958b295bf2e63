// The built-in C/C++ language against a real clangd on the cpp-basic fixture, with a
// compile_commands.json so the background index covers files never opened, when clangd is
// installed (Debian: apt-get install clangd); skipped otherwise.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServiceError } from "@lspmesh/grpc";
import { HierarchyRequest_Direction, ServerState } from "@lspmesh/proto";
import { needs, waitFor } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cppLanguage, LanguageRegistry } from "./runnerInternals.js";
import { at, places, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

describe.skipIf(!needs("clangd", "runnerCpp"))("clangd answers, positions exact", () => {
  let env: FixtureRunner;

  beforeAll(async () => {
    env = await startFixtureRunner({ fixture: "cpp-basic" });
    // clangd's background index needs absolute directories in compile_commands.json.
    // 150 functions named alike: more than clangd answers workspace/symbol with unless asked (100).
    const many = Array.from(
      { length: 150 },
      (_, i) => `int route_${String(i).padStart(3, "0")}(int x) { return x + ${i}; }`,
    );
    writeFileSync(join(env.dir, "src/many.cpp"), `${many.join("\n")}\n`);
    writeFileSync(
      join(env.dir, "src/shapes.h"),
      "#pragma once\nstruct Shape {};\nstruct Circle : Shape {};\nstruct Ring : Circle {};\nstruct Square : Shape {};\n",
    );
    const commands = ["greeter.cpp", "main.cpp", "broken.cpp", "many.cpp"].map((file) => ({
      directory: env.dir,
      file: `src/${file}`,
      arguments: ["clang++", "-std=c++17", "-c", `src/${file}`],
    }));
    writeFileSync(join(env.dir, "compile_commands.json"), JSON.stringify(commands));
    // No waiting for clangd's background index here: the first call waits for it (indexProgress).
  });

  afterAll(async () => {
    await env?.close();
  });

  test("definition by symbol on a line with a tab, CJK and emoji before it", async () => {
    const answer = await env.client.findDefinition({ workspace: ws, at: symbol("src/main.cpp", "make_greeting", 4) });
    expect(answer.status?.resolved).toMatchObject({ line: 4, column: 55 });
    expect(answer.status).toMatchObject({ language: "cpp", state: ServerState.READY });
    expect(places(answer.locations)).toEqual(["src/greeter.cpp:7:5"]);
    expect(answer.locations[0]?.snippet).toBe(
      'int make_greeting(const char* name) { return PoliteGreeter{"dear"}.greet(name); }',
    );
  });

  test("definition by line and column equals the second occurrence", async () => {
    const answer = await env.client.findDefinition({ workspace: ws, at: at("src/main.cpp", 4, 86) });
    expect(places(answer.locations)).toEqual(["src/greeter.cpp:7:5"]);
  });

  test("references across files", async () => {
    const answer = await env.client.findReferences({
      workspace: ws,
      at: symbol("src/greeter.h", "make_greeting", 11),
      includeDeclaration: true,
    });
    expect(places(answer.locations)).toEqual([
      "src/broken.cpp:3:30",
      "src/greeter.cpp:7:5",
      "src/greeter.h:11:5",
      "src/main.cpp:4:55",
      "src/main.cpp:4:86",
    ]);
  });

  test("hover shows the signature", async () => {
    const answer = await env.client.hover({ workspace: ws, at: symbol("src/main.cpp", "make_greeting", 4) });
    expect(answer.contents).toContain("int make_greeting(const char *name)");
  });

  test("document symbols and workspace symbols", async () => {
    const document = await env.client.documentSymbols({ workspace: ws, file: "src/greeter.h" });
    const namespace = document.symbols.find((s) => s.name === "greeter");
    expect(namespace?.children.map((c) => c.name)).toEqual(expect.arrayContaining(["PoliteGreeter", "make_greeting"]));
    // Every symbol kind is declared to clangd: a struct is a struct (23), not the class (5) it would
    // have to use otherwise.
    expect(namespace?.children.find((c) => c.name === "PoliteGreeter")?.kind).toBe(23);
    const workspace = await env.client.workspaceSymbols({ workspace: ws, query: "PoliteGreeter" });
    expect(workspace.symbols.find((s) => s.name === "PoliteGreeter")?.kind).toBe(23);
    expect(workspace.symbols.map((s) => [s.name, s.location?.file, s.location?.range?.start?.line])).toContainEqual([
      "PoliteGreeter",
      "src/greeter.h",
      6,
    ]);
  });

  test("type hierarchy: clangd 14's own textDocument/typeHierarchy answers when the standard request is unknown", async () => {
    const sub = await env.client.typeHierarchy({
      workspace: ws,
      at: symbol("src/shapes.h", "Shape", 2),
      direction: HierarchyRequest_Direction.INCOMING,
      depth: 2,
    });
    // Each node as [name, line, children by line] (clangd lists subtypes in its index's order).
    type Node = { name: string; location?: { range?: { start?: { line: number } } }; children: Node[] };
    const line = (node: Node) => node.location?.range?.start?.line ?? 0;
    const tree = (node: Node): unknown => [
      node.name,
      line(node),
      [...node.children].sort((a, b) => line(a) - line(b)).map(tree),
    ];
    expect(tree(sub.root as Node)).toEqual([
      "Shape",
      2,
      [
        ["Circle", 3, [["Ring", 4, []]]],
        ["Square", 5, []],
      ],
    ]);
    const up = await env.client.typeHierarchy({
      workspace: ws,
      at: symbol("src/shapes.h", "Ring", 4),
      direction: HierarchyRequest_Direction.OUTGOING,
      depth: 3,
    });
    expect(tree(up.root as Node)).toEqual(["Ring", 4, [["Circle", 3, [["Shape", 2, []]]]]]);
  });

  test("workspace symbols past clangd's default 100: every match is counted, and the answer is complete", async () => {
    const answer = await env.client.workspaceSymbols({ workspace: ws, query: "route_" });
    expect(answer.total).toBe(150);
    expect(answer.status).toMatchObject({ partial: false });
  });

  test("a header's edit: check_edit says clangd cannot show it to the includers; applied with a delta, they are checked", async () => {
    // greeter.h line 11: make_greeting takes a second argument; main.cpp still calls it with one.
    const original = readFileSync(join(env.dir, "src/greeter.h"), "utf8");
    const edit = {
      files: [
        {
          file: "src/greeter.h",
          edits: [
            { range: { start: { line: 11, column: 35 }, end: { line: 11, column: 35 } }, newText: ", int extra" },
          ],
        },
      ],
    };
    const checked = await env.client.checkEdit({
      workspace: ws,
      change: { case: "edit", value: edit },
      waitMs: 20_000,
    });
    expect(checked.delta?.importerFiles).toEqual(expect.arrayContaining(["src/main.cpp", "src/greeter.cpp"]));
    expect(checked.delta?.partial).toBe(true);
    expect(checked.delta?.note).toContain(
      "that include the edited file against its saved content, not against the edit",
    );
    expect(readFileSync(join(env.dir, "src/greeter.h"), "utf8")).toBe(original);
    try {
      const applied = await env.client.applyWorkspaceEdit({
        workspace: ws,
        edit,
        delta: { enabled: true, waitMs: 20_000 },
      });
      const added = applied.delta!.changes.filter((change) => change.state === "new").map((change) => change.file);
      expect(added).toContain("src/main.cpp");
    } finally {
      writeFileSync(join(env.dir, "src/greeter.h"), original);
    }
  });

  test("a type error at its line and column, fixed on disk", async () => {
    const first = await env.client.diagnostics({ workspace: ws, files: ["src/broken.cpp"], waitMs: 20_000 });
    const file = first.files[0]!;
    expect(file.fresh).toBe(true);
    expect(file.diagnostics.map((d) => [d.range?.start?.line, d.range?.start?.column, d.severity])).toEqual([
      [3, 13, 1],
    ]);
    writeFileSync(
      join(env.dir, "src/broken.cpp"),
      '#include "greeter.h"\n\nint count = greeter::make_greeting("typed");\n',
    );
    const fixed = await env.client.diagnostics({ workspace: ws, files: ["src/broken.cpp"], waitMs: 20_000 });
    expect(fixed.files[0]).toMatchObject({ fresh: true, version: file.version + 1, diagnostics: [] });
  });
});

/**
 * A C project clangd takes seconds to index: `util.h` declares helper(), called from UNITS files.
 * The header opens and parses at once, and clangd reports its background index only once that
 * starts: a first answer given then is from the header alone.
 */
const UNITS = 120;

function writeIndexedProject(dir: string, database: boolean): void {
  mkdirSync(join(dir, "lib"), { recursive: true });
  writeFileSync(join(dir, "lib/util.h"), "int helper(int x);\n");
  const commands: Array<{ directory: string; file: string; arguments: string[] }> = [];
  for (let i = 0; i < UNITS; i++) {
    const file = `lib/unit${i}.c`;
    // Each unit pulls in a few thousand lines of declarations, so indexing takes its time.
    writeFileSync(
      join(dir, file),
      `#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include "util.h"\nint unit${i}(void) { return helper(${i}); }\n`,
    );
    commands.push({ directory: dir, file, arguments: ["cc", "-c", file] });
  }
  if (database) {
    mkdirSync(join(dir, "build"), { recursive: true });
    writeFileSync(join(dir, "build/compile_commands.json"), JSON.stringify(commands));
  }
}

describe.skipIf(!needs("clangd", "runnerCpp"))("clangd's background index", () => {
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  test("a cold find_references is partial while the index is not built, then equal to clangd's complete answer", async () => {
    const env = await startFixtureRunner({ files: {} });
    closers.push(() => env.close());
    writeIndexedProject(env.dir, true);
    const ask = () =>
      env.client.findReferences({ workspace: ws, at: symbol("lib/util.h", "helper", 1), includeDeclaration: true });
    const cold = await ask();
    const complete = await waitFor(
      "a complete answer",
      async () => {
        const answer = await ask();
        return answer.status?.partial === false ? answer : undefined;
      },
      { timeoutMs: 120_000 },
    );
    expect(complete.locations).toHaveLength(UNITS + 1);
    // Complete means every use: the cold answer is either all of them, or says it is not.
    if (places(cold.locations).length < UNITS + 1) {
      expect(cold.status).toMatchObject({ partial: true, state: ServerState.INDEXING });
      expect(cold.status?.note).toMatch(
        /the cpp server is indexing \((clangd's background index has not started yet|indexing)/,
      );
    } else {
      expect(places(cold.locations)).toEqual(places(complete.locations));
    }
  }, 180_000);

  test("without compile_commands.json every answer says clangd guesses and knows only the opened files", async () => {
    const env = await startFixtureRunner({ files: {} });
    closers.push(() => env.close());
    writeIndexedProject(env.dir, false);
    const answer = await env.client.findReferences({
      workspace: ws,
      at: symbol("lib/util.h", "helper", 1),
      includeDeclaration: true,
    });
    expect(answer.status?.partial).toBe(true);
    expect(answer.status?.note).toContain("no compile_commands.json in the workspace root or build/");
    // A rename would miss uses for as long as that lasts: refused, naming the fix, not "retry shortly".
    const rename = await env.client
      .renameSymbol({ workspace: ws, at: symbol("lib/util.h", "helper", 1), newName: "assist", apply: true })
      .then(
        () => "applied",
        (error: ServiceError) => `${error.metadata.get("lspmesh-error-code")[0]}: ${error.details}`,
      );
    expect(rename).toMatch(
      /^UNSUPPORTED: the cpp server does not see the whole workspace \(.*no compile_commands\.json/,
    );
    expect(rename).toContain("fix what the note names");
    expect(readFileSync(join(env.dir, "lib/util.h"), "utf8")).toBe("int helper(int x);\n");
    // A file's own outline needs no compile database: complete.
    const outline = await env.client.documentSymbols({ workspace: ws, file: "lib/util.h" });
    expect(outline.symbols.map((s) => s.name)).toEqual(["helper"]);
    expect(outline.status?.partial).toBe(false);
  }, 60_000);

  test("a compile_commands.json naming files elsewhere never starts the index: calls stop waiting, and say so", async () => {
    const cpp = cppLanguage();
    const index = cpp.indexProgress!;
    const languages = new LanguageRegistry([{ ...cpp, indexProgress: { ...index, startTimeoutMs: 3_000 } }]);
    const env = await startFixtureRunner({ files: {}, languages });
    closers.push(() => env.close());
    writeIndexedProject(env.dir, true);
    // The checkout moved: every entry names a folder that is not there.
    const database = join(env.dir, "build/compile_commands.json");
    writeFileSync(database, readFileSync(database, "utf8").replaceAll(env.dir, "/nonexistent/checkout"));
    const ask = () =>
      env.client.findReferences({ workspace: ws, at: symbol("lib/util.h", "helper", 1), includeDeclaration: true });
    await ask();
    const started = Date.now();
    const later = await ask();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(later.status?.partial).toBe(true);
    expect(later.status?.note).toContain("clangd's background index has not started yet after 3 s");
  }, 60_000);
});
