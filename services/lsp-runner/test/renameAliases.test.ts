// tsserver renames a binding and keeps the name other code relies on through an alias: an export
// list's `export { renamed as old }` (the importers keep `old`), an object shorthand's
// `{ old: renamed }`. The edit is the server's; the answer says where the old name stays.
import { afterAll, beforeAll, expect, test } from "vitest";
import { LanguageRegistry, typescriptLanguage } from "./runnerInternals.js";
import { symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const FILES: Record<string, string> = {
  "tsconfig.json": '{ "compilerOptions": { "strict": true }, "include": ["src"] }\n',
  "src/core.ts": "function untracked(): number {\n  return 1;\n}\n\nexport { untracked };\n",
  "src/use.ts": 'import { untracked } from "./core";\n\nexport const value = untracked();\n',
  "src/plain.ts": "export function tracked(): number {\n  return 2;\n}\n",
  "src/usePlain.ts": 'import { tracked } from "./plain";\n\nexport const other = tracked();\n',
};

let env: FixtureRunner;

beforeAll(async () => {
  env = await startFixtureRunner({ files: FILES, languages: new LanguageRegistry([typescriptLanguage()]) });
});

afterAll(() => env?.close());

const edits = (answer: Awaited<ReturnType<FixtureRunner["client"]["renameSymbol"]>>) =>
  (answer.edit?.files ?? []).flatMap((file) =>
    file.edits.map((edit) => `${file.file}:${edit.range?.start?.line}:${edit.range?.start?.column} ${edit.newText}`),
  );

test("a rename kept by an export alias is the server's edit, and the answer names where the old name stays", async () => {
  const answer = await env.client.renameSymbol({
    workspace: ws,
    at: symbol("src/core.ts", "untracked", 1),
    newName: "untrackedX",
  });
  expect(edits(answer).sort()).toEqual(["src/core.ts:1:10 untrackedX", "src/core.ts:5:10 untrackedX as untracked"]);
  expect(answer.status?.partial).toBe(false);
  expect(answer.status?.note).toContain(
    `1 edit keeps the old name 'untracked' through an alias (src/core.ts:5:10 "untrackedX as untracked")`,
  );
});

test("a rename that renames every use says nothing of aliases", async () => {
  const answer = await env.client.renameSymbol({
    workspace: ws,
    at: symbol("src/plain.ts", "tracked", 1),
    newName: "kept",
  });
  expect(edits(answer).sort()).toEqual([
    "src/plain.ts:1:17 kept",
    "src/usePlain.ts:1:10 kept",
    "src/usePlain.ts:3:22 kept",
  ]);
  expect(answer.status?.note ?? "").not.toContain("alias");
});
