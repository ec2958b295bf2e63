// check_edit and the deltas of edits, through gRPC against real typescript-language-server: the
// delta in the edited file and its importers, nothing written, concurrent checks each seeing only
// their own edit; what a check lays over the documents is never published as the files'
// diagnostics, leaves no trace that makes an edit previewed before it stale, and every edit of one
// file in the check counts; applied code actions and file renames answer their delta. (Python is
// checked end to end in test/e2e agentTools.test.ts.)
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DiagnosticsMessage } from "@lspmesh/events";
import { afterAll, beforeAll, expect, test } from "vitest";
import { InProcessEventBus } from "../src/events/inProcessEventBus.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

type Changes = Array<{ file: string; state: string; diagnostic?: { message: string } }>;
const summary = (changes: Changes) =>
  changes.filter((c) => c.state !== "unchanged").map((c) => `${c.state} ${c.file}: ${c.diagnostic?.message ?? ""}`);

const range = (line: number, column: number, endLine: number, endColumn: number) => ({
  start: { line, column },
  end: { line: endLine, column: endColumn },
});

/** src/greeter.ts: makeGreeting returns a number instead of a string (breaks src/main.ts). */
const breaking = {
  files: [{ file: "src/greeter.ts", edits: [{ range: range(14, 45, 15, 42), newText: "number {\n  return 42;" }] }],
};
const LENGTH_ERROR = "Property 'length' does not exist on type 'number'.";
// src/broken.ts line 3: `count: number` becomes `count: string` — fixes its own error.
const fixing = {
  files: [{ file: "src/broken.ts", edits: [{ range: range(3, 21, 3, 27), newText: "string" }] }],
};

const bus = new InProcessEventBus();
let env: FixtureRunner;
beforeAll(async () => {
  env = await startFixtureRunner({ fixture: "typescript-basic", events: bus });
});
afterAll(async () => {
  await env?.close();
  await bus.close();
});

test("what a check lays over the documents is never published as the files' diagnostics", async () => {
  const published: DiagnosticsMessage[] = [];
  const listening = bus.onDiagnostics((message) => published.push(message));
  try {
    const answer = await env.client.checkEdit({
      workspace: ws,
      change: { case: "edit", value: breaking },
      waitMs: 20_000,
    });
    expect(summary(answer.delta!.changes)).toContain(`new src/main.ts: ${LENGTH_ERROR}`);
  } finally {
    listening.close();
  }
  // Only the files' own content is published: its hash, and none of the errors the edit causes.
  const diskHash = (file: string) =>
    createHash("sha256")
      .update(readFileSync(join(env.dir, file), "utf8"))
      .digest("hex");
  const overlaid = published.filter(
    (message) =>
      message.contentSha256 !== diskHash(message.file) || message.diagnostics.some((d) => d.message === LENGTH_ERROR),
  );
  expect(overlaid.map((m) => `${m.file} v${m.version}`)).toEqual([]);
  const latest = bus.latestDiagnostics().find((message) => message.file === "src/main.ts");
  expect(latest?.diagnostics.map((d) => d.message) ?? []).not.toContain(LENGTH_ERROR);
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
  expect(summary(b.delta!.changes)).toEqual(["fixed src/broken.ts: Type 'string' is not assignable to type 'number'."]);
});

test("several edits of one file in a check apply one after the other; a hunk that does not apply is named", async () => {
  const twice = {
    files: [
      ...breaking.files,
      // Against the text after the first edit (as servers' edits and the applier chain them).
      { file: "src/greeter.ts", edits: [{ range: range(17, 1, 17, 1), newText: "export const late: string = 1;\n" }] },
    ],
  };
  const answer = await env.client.checkEdit({ workspace: ws, change: { case: "edit", value: twice }, waitMs: 20_000 });
  expect(answer.delta?.editedFiles).toEqual(["src/greeter.ts"]);
  const changes = summary(answer.delta!.changes);
  expect(changes).toContain(`new src/main.ts: ${LENGTH_ERROR}`);
  expect(changes).toContain("new src/greeter.ts: Type 'number' is not assignable to type 'string'.");
  const patch = [
    "--- a/src/greeter.ts",
    "+++ b/src/greeter.ts",
    "@@ -1,1 +1,1 @@",
    "-/** Something that can greet. */",
    "+/** Something that greets. */",
    "@@ -14,1 +14,1 @@",
    "-export function makeGreeting(name: number): string {",
    "+export function makeGreeting(name: string): number {",
    "",
  ].join("\n");
  await expect(env.client.checkEdit({ workspace: ws, change: { case: "patch", value: patch } })).rejects.toThrow(
    /does not apply to src\/greeter.ts: the context lines of its hunk @@ -14,1 \+14,1 @@ differ/,
  );
});

test("a quick fix applied with a delta reports the error it fixed", async () => {
  writeFileSync(join(env.dir, "src/usesGreeter.ts"), 'export const hello = makeGreeting("x");\n');
  const answer = await env.client.codeActions({
    workspace: ws,
    file: "src/usesGreeter.ts",
    range: { start: { line: 1, column: 22 } },
    kinds: ["quickfix"],
    applyTitle: 'Add import from "./greeter"',
    delta: { enabled: true, waitMs: 20_000 },
  });
  expect(answer.applied).toBe(true);
  expect(env.read("src/usesGreeter.ts")).toContain('from "./greeter"');
  expect(answer.delta?.editedFiles).toEqual(["src/usesGreeter.ts"]);
  expect(summary(answer.delta!.changes)).toEqual(["fixed src/usesGreeter.ts: Cannot find name 'makeGreeting'."]);
});

test("an edit previewed before a check of it still applies after the check", async () => {
  const preview = await env.client.renameSymbol({
    workspace: ws,
    at: { file: "src/greeter.ts", target: { case: "symbol", value: { name: "makeGreeting", lineHint: 14 } } },
    newName: "buildGreeting",
  });
  expect(preview.edit?.files.map((f) => f.file).sort()).toEqual([
    "src/broken.ts",
    "src/greeter.ts",
    "src/main.ts",
    "src/usesGreeter.ts",
  ]);
  const checked = await env.client.checkEdit({
    workspace: ws,
    change: { case: "edit", value: preview.edit! },
    waitMs: 20_000,
  });
  expect(checked.delta?.editedFiles.sort()).toEqual([
    "src/broken.ts",
    "src/greeter.ts",
    "src/main.ts",
    "src/usesGreeter.ts",
  ]);
  const applied = await env.client.applyWorkspaceEdit({ workspace: ws, edit: preview.edit! });
  expect(applied.applied).toBe(true);
  expect(env.read("src/main.ts")).toContain("buildGreeting");
});

test("a file renamed with a delta is compared under its old path before and its new one after", async () => {
  const answer = await env.client.renameFile({
    workspace: ws,
    file: "src/broken.ts",
    newFile: "src/moved/broken.ts",
    apply: true,
    delta: { enabled: true, waitMs: 20_000 },
  });
  expect(answer.applied).toBe(true);
  expect(env.read("src/moved/broken.ts")).toContain('from "../greeter"');
  expect(answer.delta?.editedFiles).toEqual(["src/moved/broken.ts"]);
  expect(answer.delta?.partial, answer.delta?.note).toBe(false);
  // Its own error moved with it: the same, not fixed under the old path and new under the new one.
  expect(answer.delta!.changes.map((c) => `${c.state} ${c.file}: ${c.diagnostic?.message}`)).toEqual([
    "unchanged src/moved/broken.ts: Type 'string' is not assignable to type 'number'.",
  ]);
});
