// check_edit through the runner's gRPC service against real typescript-language-server and
// pyright: the delta of an edit laid over the documents as unsaved content, in the edited file and
// its importers; nothing written; concurrent checks each see only their own edit.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

type Changes = Array<{ file: string; state: string; diagnostic?: { message: string } }>;
const summary = (changes: Changes) =>
  changes.filter((c) => c.state !== "unchanged").map((c) => `${c.state} ${c.file}: ${c.diagnostic?.message ?? ""}`);

// src/greeter.ts line 14-15: makeGreeting returns a number instead of a string.
const breaking = {
  files: [
    {
      file: "src/greeter.ts",
      edits: [
        {
          range: { start: { line: 14, column: 45 }, end: { line: 15, column: 42 } },
          newText: "number {\n  return 42;",
        },
      ],
    },
  ],
};
// src/broken.ts line 3: `count: number` becomes `count: string` — fixes its own error.
const fixing = {
  files: [
    {
      file: "src/broken.ts",
      edits: [{ range: { start: { line: 3, column: 21 }, end: { line: 3, column: 27 } }, newText: "string" }],
    },
  ],
};

describe("TypeScript", () => {
  let env: FixtureRunner;
  beforeAll(async () => {
    env = await startFixtureRunner({ fixture: "typescript-basic" });
  });
  afterAll(async () => {
    await env?.close();
  });

  test("a breaking change reports its importers' new errors and the fixed one; the disk is untouched", async () => {
    const before = env.snapshot();
    const answer = await env.client.checkEdit({
      workspace: ws,
      change: { case: "edit", value: breaking },
      waitMs: 20_000,
    });
    expect(answer.delta?.editedFiles).toEqual(["src/greeter.ts"]);
    expect(answer.delta?.importerFiles.sort()).toEqual(["src/broken.ts", "src/main.ts"]);
    expect(answer.delta?.partial, answer.delta?.note).toBe(false);
    // The hint is the server's too: `name` is no longer read by the new body.
    expect(summary(answer.delta!.changes)).toEqual([
      "new src/greeter.ts: 'name' is declared but its value is never read.",
      "new src/main.ts: Property 'length' does not exist on type 'number'.",
      "fixed src/broken.ts: Type 'string' is not assignable to type 'number'.",
    ]);
    expect(env.snapshot()).toEqual(before);
    // The server's documents are the disk's again: hover sees the original signature.
    const hover = await env.client.hover({
      workspace: ws,
      at: { file: "src/greeter.ts", target: { case: "symbol", value: { name: "makeGreeting", lineHint: 14 } } },
    });
    expect(hover.contents).toContain("makeGreeting(name: string): string");
  });

  test("two concurrent checks each get the delta of their own edit", async () => {
    const [a, b] = await Promise.all([
      env.client.checkEdit({ workspace: ws, change: { case: "edit", value: breaking }, waitMs: 20_000 }),
      env.client.checkEdit({ workspace: ws, change: { case: "edit", value: fixing }, waitMs: 20_000 }),
    ]);
    expect(summary(a.delta!.changes)).toContain("new src/main.ts: Property 'length' does not exist on type 'number'.");
    expect(summary(b.delta!.changes)).toEqual([
      "fixed src/broken.ts: Type 'string' is not assignable to type 'number'.",
    ]);
  });

  test("a patch that does not apply is refused, naming the file", async () => {
    const patch = "--- a/src/greeter.ts\n+++ b/src/greeter.ts\n@@ -1,1 +1,1 @@\n-not the first line\n+x\n";
    await expect(env.client.checkEdit({ workspace: ws, change: { case: "patch", value: patch } })).rejects.toThrow(
      /does not apply to src\/greeter.ts/,
    );
  });

  test("an applied edit with delta reports what it broke", async () => {
    const answer = await env.client.applyWorkspaceEdit({
      workspace: ws,
      edit: breaking,
      delta: { enabled: true, waitMs: 20_000 },
    });
    expect(answer.applied).toBe(true);
    expect(readFileSync(join(env.dir, "src/greeter.ts"), "utf8")).toContain("return 42;");
    expect(summary(answer.delta!.changes)).toContain(
      "new src/main.ts: Property 'length' does not exist on type 'number'.",
    );
  });
});

describe("Python", () => {
  let env: FixtureRunner;
  beforeAll(async () => {
    env = await startFixtureRunner({ fixture: "python-basic" });
  });
  afterAll(async () => {
    await env?.close();
  });

  test("a changed signature reports the new error in an importer (patch)", async () => {
    const before = env.snapshot();
    const patch = [
      "--- a/src/greeter.py",
      "+++ b/src/greeter.py",
      "@@ -11,2 +11,2 @@",
      "-def make_greeting(name: str) -> str:",
      "+def make_greeting(name: str, punctuation: str) -> str:",
      "     return PoliteGreeter().greet(name)",
      "",
    ].join("\n");
    const answer = await env.client.checkEdit({
      workspace: ws,
      change: { case: "patch", value: patch },
      waitMs: 30_000,
    });
    const changes = summary(answer.delta!.changes);
    expect(
      changes.some((c) => c.startsWith("new src/main.py") && c.includes("punctuation")),
      changes.join("\n"),
    ).toBe(true);
    expect(env.snapshot()).toEqual(before);
  });
});
