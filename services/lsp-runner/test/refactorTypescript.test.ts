// typescript-language-server's refactorings (extract, move to a new file) carry no edit, only a
// command that would write files itself; the runner asks tsserver for their edits, so they are
// previewed like any code action — nothing written — and applied through the runner's own edit
// path. Real typescript-language-server, on the typescript-basic fixture.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { FileOperation_Kind } from "@lspmesh/proto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { span } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

let env: FixtureRunner;

beforeAll(async () => {
  env = await startFixtureRunner({ fixture: "typescript-basic" });
});

afterAll(() => env?.close());

/** `makeGreeting("a").length` on line 6: `export const total: number = makeGreeting("a").length;` */
const expression = { start: { line: 6, column: 30 }, end: { line: 6, column: 54 } };

test("refactorings are listed with their edits, and listing writes nothing", async () => {
  const before = env.snapshot();
  const answer = await env.client.codeActions({ workspace: ws, file: "src/main.ts", range: expression, kinds: [] });
  const byTitle = new Map(answer.actions.map((action) => [action.title, action]));
  const constant = byTitle.get("Extract to constant in enclosing scope");
  expect(constant?.disabledReason).toBe("");
  expect(
    constant?.edit?.files.map((file) => file.edits.map((e) => `${file.file}:${span(e.range!)} ${e.newText}`)),
  ).toEqual([['src/main.ts:6:1-6:1 const length = makeGreeting("a").length;\n', "src/main.ts:6:30-6:54 length"]]);
  const move = byTitle.get("Move to a new file");
  expect(move?.edit?.operations).toEqual([
    expect.objectContaining({ kind: FileOperation_Kind.CREATE, file: "src/total.ts" }),
  ]);
  expect(move?.edit?.files.map((file) => file.file).sort()).toEqual(["src/main.ts", "src/total.ts"]);
  expect(env.snapshot()).toEqual(before);
  expect(existsSync(join(env.dir, "src/total.ts"))).toBe(false);
});

test("kinds filter what is listed, and an action not applicable here comes with the server's reason", async () => {
  const extract = await env.client.codeActions({
    workspace: ws,
    file: "src/main.ts",
    range: { start: { line: 6, column: 30 }, end: { line: 6, column: 54 } },
    kinds: ["refactor.extract.type"],
  });
  expect(extract.actions.length).toBeGreaterThan(0);
  for (const action of extract.actions) {
    expect(action.kind).toMatch(/^refactor\.extract\.type/);
    // An expression is no type: tsserver says why each cannot apply.
    expect(action.disabledReason).toBe("Selection is not a valid type node");
    expect(action.edit?.files ?? []).toEqual([]);
  }
});

test("moving a declaration to a new file, applied: the new file holds it with its import, the old one lost it", async () => {
  const main = env.read("src/main.ts");
  const answer = await env.client.codeActions({
    workspace: ws,
    file: "src/main.ts",
    range: expression,
    kinds: [],
    applyTitle: "Move to a new file",
  });
  expect(answer.applied).toBe(true);
  expect(env.read("src/total.ts")).toBe(
    'import { makeGreeting } from "./greeter";\n\nexport const total: number = makeGreeting("a").length;\n',
  );
  const lines = main.split("\n");
  expect(env.read("src/main.ts")).toBe([...lines.slice(0, 5), ...lines.slice(6)].join("\n"));
});
