// The built-in Rust language against a real rust-analyzer on the rust-basic fixture (build
// scripts, proc macros and cargo check off), when rust-analyzer runs here (`rustup component add
// rust-analyzer`, or a release binary on PATH; a rustup proxy without the component does not
// count); skipped otherwise.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { needs } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { at, places, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

describe.skipIf(!needs("rust-analyzer", "runnerRust"))("rust-analyzer answers, positions exact", () => {
  let env: FixtureRunner;

  beforeAll(async () => {
    env = await startFixtureRunner({ fixture: "rust-basic" });
  });

  afterAll(async () => {
    await env?.close();
  });

  test("definition by symbol on a line with CJK and emoji before it", async () => {
    // Line 7: let wave = "こんにちは 👋🏽 ".to_string() + &make_greeting(…): code-point column 43.
    const answer = await env.client.findDefinition({ workspace: ws, at: symbol("src/main.rs", "make_greeting", 7) });
    expect(answer.status?.resolved).toMatchObject({ line: 7, column: 43 });
    expect(answer.status?.language).toBe("rust");
    expect(places(answer.locations)).toEqual(["src/greeter.rs:15:8"]);
    expect(answer.locations[0]?.snippet).toBe("pub fn make_greeting(name: &str) -> String {");
  });

  test("definition by line and column equals the second occurrence", async () => {
    const answer = await env.client.findDefinition({ workspace: ws, at: at("src/main.rs", 7, 74) });
    expect(places(answer.locations)).toEqual(["src/greeter.rs:15:8"]);
  });

  test("references across modules", async () => {
    const answer = await env.client.findReferences({
      workspace: ws,
      at: symbol("src/greeter.rs", "make_greeting", 15),
      includeDeclaration: true,
    });
    expect(places(answer.locations)).toEqual(
      ["src/greeter.rs:15:8", "src/main.rs:4:14", "src/main.rs:7:43", "src/main.rs:7:74"].sort(),
    );
  });

  test("hover shows the signature", async () => {
    const answer = await env.client.hover({ workspace: ws, at: symbol("src/main.rs", "make_greeting", 7) });
    expect(answer.contents).toContain("pub fn make_greeting(name: &str) -> String");
  });

  test("document symbols and workspace symbols", async () => {
    const document = await env.client.documentSymbols({ workspace: ws, file: "src/greeter.rs" });
    expect(document.symbols.map((s) => s.name)).toEqual(expect.arrayContaining(["PoliteGreeter", "make_greeting"]));
    const workspace = await env.client.workspaceSymbols({ workspace: ws, query: "PoliteGreeter" });
    expect(workspace.symbols.map((s) => [s.name, s.location?.file, s.location?.range?.start?.line])).toContainEqual([
      "PoliteGreeter",
      "src/greeter.rs",
      4,
    ]);
  });

  test("a missing field is reported natively (no cargo check), then fixed on disk", async () => {
    const first = await env.client.diagnostics({ workspace: ws, files: ["src/broken.rs"], waitMs: 30_000 });
    const file = first.files[0]!;
    expect(file.fresh).toBe(true);
    expect(file.diagnostics.map((d) => [d.code, d.range?.start?.line, d.range?.start?.column])).toContainEqual([
      "E0063",
      4,
      19,
    ]);
    writeFileSync(
      join(env.dir, "src/broken.rs"),
      'use crate::greeter::make_greeting;\n\npub fn count() -> usize {\n    make_greeting("typed").len()\n}\n',
    );
    const fixed = await env.client.diagnostics({ workspace: ws, files: ["src/broken.rs"], waitMs: 30_000 });
    expect(fixed.files[0]?.version).toBe(file.version + 1);
    expect(fixed.files[0]?.diagnostics.filter((d) => d.code === "E0063")).toEqual([]);
  });
});
