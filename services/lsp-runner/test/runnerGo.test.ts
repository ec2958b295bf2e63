// The built-in Go language against a real gopls on the go-basic fixture, when gopls and Go are
// installed (Debian: apt-get install gopls golang-go); skipped otherwise.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ServerState } from "@lspmesh/proto";
import { needs } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { at, places, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

describe.skipIf(!needs("gopls", "runnerGo"))("gopls answers, positions exact", () => {
  let env: FixtureRunner;

  beforeAll(async () => {
    env = await startFixtureRunner({ fixture: "go-basic" });
    // 120 functions named alike: more than gopls answers workspace/symbol with (its best 100).
    mkdirSync(join(env.dir, "src/many"));
    const many = Array.from({ length: 120 }, (_, i) => `func Route${String(i).padStart(3, "0")}() int { return ${i} }`);
    writeFileSync(join(env.dir, "src/many/many.go"), `package many\n\n${many.join("\n")}\n`);
  });

  afterAll(async () => {
    await env?.close();
  });

  test("definition by symbol on a line with a tab, CJK and emoji before it", async () => {
    // Line 6: "\twave := \"こんにちは 👋🏽 \" + greeter.MakeGreeting(…)": code-point column 32.
    const answer = await env.client.findDefinition({ workspace: ws, at: symbol("src/main.go", "MakeGreeting", 6) });
    expect(answer.status?.resolved).toMatchObject({ line: 6, column: 32 });
    expect(answer.status).toMatchObject({ language: "go", state: ServerState.READY });
    expect(places(answer.locations)).toEqual(["src/greeter/greeter.go:15:6"]);
    expect(answer.locations[0]?.snippet).toBe("func MakeGreeting(name string) string {");
  });

  test("definition by line and column equals the second occurrence", async () => {
    const answer = await env.client.findDefinition({ workspace: ws, at: at("src/main.go", 6, 69) });
    expect(places(answer.locations)).toEqual(["src/greeter/greeter.go:15:6"]);
  });

  test("references across packages", async () => {
    const answer = await env.client.findReferences({
      workspace: ws,
      at: symbol("src/greeter/greeter.go", "MakeGreeting", 15),
      includeDeclaration: true,
    });
    expect(places(answer.locations)).toEqual(
      ["src/broken/broken.go:5:25", "src/greeter/greeter.go:15:6", "src/main.go:6:32", "src/main.go:6:69"].sort(),
    );
  });

  test("hover shows the signature", async () => {
    const answer = await env.client.hover({ workspace: ws, at: symbol("src/main.go", "MakeGreeting", 6) });
    // Older gopls qualify the name with its package.
    expect(answer.contents).toMatch(/func (greeter\.)?MakeGreeting\(name string\) string/);
  });

  test("document symbols and workspace symbols", async () => {
    const document = await env.client.documentSymbols({ workspace: ws, file: "src/greeter/greeter.go" });
    expect(document.symbols.map((s) => s.name)).toEqual(expect.arrayContaining(["PoliteGreeter", "MakeGreeting"]));
    expect(document.symbols.find((s) => s.name === "PoliteGreeter")?.range?.start).toMatchObject({
      line: 5,
      column: 6,
    });
    const workspace = await env.client.workspaceSymbols({ workspace: ws, query: "PoliteGreeter" });
    expect(workspace.symbols.map((s) => [s.name, s.location?.file, s.location?.range?.start?.line])).toContainEqual([
      "PoliteGreeter",
      "src/greeter/greeter.go",
      5,
    ]);
  });

  test("workspace symbols at gopls's cap of 100 are partial and say so; fewer are complete", async () => {
    const capped = await env.client.workspaceSymbols({ workspace: ws, query: "Route0" });
    expect(capped.total).toBe(100);
    expect(capped.status?.partial).toBe(true);
    expect(capped.status?.note).toContain("the go server answers at most 100 matches and gave that many");
    // gopls matches fuzzily: of these names only Route119 has the letters of "Route119" in order.
    const few = await env.client.workspaceSymbols({ workspace: ws, query: "Route119" });
    expect(few.symbols.map((s) => s.name)).toEqual(["Route119"]);
    expect(few.status?.partial).toBe(false);
  });

  test("a type error at its line and column, fixed on disk", async () => {
    const first = await env.client.diagnostics({ workspace: ws, files: ["src/broken/broken.go"], waitMs: 20_000 });
    const file = first.files[0]!;
    expect(file.fresh).toBe(true);
    expect(file.diagnostics.map((d) => [d.range?.start?.line, d.range?.start?.column, d.severity])).toEqual([
      [5, 17, 1],
    ]);
    expect(file.diagnostics[0]?.message).toMatch(/cannot use greeter\.MakeGreeting\("typed"\).*as int value/);

    writeFileSync(
      join(env.dir, "src/broken/broken.go"),
      'package broken\n\nimport "example.com/basic/src/greeter"\n\nvar Count int = len(greeter.MakeGreeting("typed"))\n',
    );
    const fixed = await env.client.diagnostics({ workspace: ws, files: ["src/broken/broken.go"], waitMs: 20_000 });
    expect(fixed.files[0]).toMatchObject({ fresh: true, version: file.version + 1, diagnostics: [] });
  });

  test("a diagnostic naming the workspace's folders names them workspace-relative, as every path shown", async () => {
    mkdirSync(join(env.dir, "src/mixed"));
    writeFileSync(join(env.dir, "src/mixed/a.go"), "package alpha\n\nfunc A() {}\n");
    writeFileSync(join(env.dir, "src/mixed/b.go"), "package beta\n\nfunc B() {}\n");
    const answer = await env.client.diagnostics({ workspace: ws, files: ["src/mixed/b.go"], waitMs: 20_000 });
    const messages = answer.files.flatMap((file) => file.diagnostics.map((d) => d.message));
    // gopls writes the folder's absolute path.
    expect(messages).toContain("found packages alpha (a.go) and beta (b.go) in src/mixed");
    expect(messages.join("\n")).not.toContain(env.dir);
  });
});

describe.skipIf(!needs("gopls", "runnerGo"))("a file of a module below the root module", () => {
  // As go-chi/chi's _examples/rest: a go.mod of its own requiring a published version of the root
  // module; gopls (no go.work) reads its files alone.
  let env: FixtureRunner;
  beforeAll(async () => {
    env = await startFixtureRunner({
      files: {
        "go.mod": "module example.com/chi\n\ngo 1.19\n",
        "chi.go": 'package chi\n\n// Greet says hello.\nfunc Greet(name string) string { return "hello " + name }\n',
        "_examples/rest/go.mod": "module rest-example\n\ngo 1.19\n\nrequire example.com/chi v1.0.1\n",
        "gen.go":
          "//go:build ignore\n\npackage main\n\nfunc main() { println(Generate()) }\n\nfunc Generate() int { return 1 }\n",
        "term_windows.go": "package chi\n\nfunc Console() int { return 2 }\n",
        "_examples/rest/main.go":
          'package main\n\nimport "example.com/chi"\n\nfunc main() {\n\tprintln(chi.Greet("x"))\n}\n',
      },
    });
  });
  afterAll(() => env?.close());

  test("answers about it, or about a file not built here, are partial saying why; the root module's are not", async () => {
    const nested = await env.client.hover({ workspace: ws, at: symbol("_examples/rest/main.go", "Greet", 6) });
    expect(nested.status?.partial).toBe(true);
    expect(nested.status?.note).toContain(
      "_examples/rest/main.go belongs to the module in _examples/rest/ (its own go.mod), which the go language server does not load from this workspace",
    );
    const root = await env.client.hover({ workspace: ws, at: symbol("chi.go", "Greet", 4) });
    expect(root.contents).toMatch(/func Greet\(name string\) string/);
    expect(root.status?.note ?? "").not.toContain("belongs to the module");
    for (const [file, name, line, why] of [
      ["gen.go", "Generate", 5, "its build constraint (//go:build ignore) leaves it out on linux/"],
      ["term_windows.go", "Console", 3, "its name (_windows) leaves it out on linux/"],
    ] as const) {
      const excluded = await env.client.hover({ workspace: ws, at: symbol(file, name, line) });
      expect(excluded.status?.partial).toBe(true);
      expect(excluded.status?.note).toContain(`${file} is not built here: ${why}`);
    }
    const diagnostics = await env.client.diagnostics({
      workspace: ws,
      files: ["_examples/rest/main.go"],
      waitMs: 2_000,
    });
    expect(diagnostics.status?.partial).toBe(true);
    expect(diagnostics.status?.note).toContain("_examples/rest/main.go belongs to the module in _examples/rest/");
  });
});
