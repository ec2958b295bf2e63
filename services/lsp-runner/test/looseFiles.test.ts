// A JavaScript package without a tsconfig.json or jsconfig.json, shaped like expressjs/express:
// CommonJS modules in lib/ that never require the tests, and tests that require lib/. tsserver
// knows a file under no project only once it is opened or imported, so a reference question asked
// in lib/ would miss every use in the tests and say nothing; the runner gives such files to
// tsserver as one project first. From a cold start: every use, complete.
import { isFaultsTier } from "@lspmesh/test-kit";
import { afterEach, beforeEach, expect, test } from "vitest";
import { LanguageRegistry, typescriptLanguage } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const FILES: Record<string, string> = {
  "package.json": '{ "name": "loose", "main": "index.js" }\n',
  "index.js": "module.exports = require('./lib/app');\n",
  "lib/app.js":
    "var utils = require('./utils');\n\nexports.tag = function tag(body) {\n  return utils.etag(body);\n};\n",
  "lib/utils.js":
    "exports.etag = function etag(body) {\n  return '\"' + String(body).length + '\"';\n};\n\nexports.methods = ['get', 'put'];\n",
  "test/utils.js":
    "var assert = require('assert');\nvar utils = require('../lib/utils');\n\nassert.strictEqual(utils.etag('x'), '\"1\"');\nassert.strictEqual(utils.etag(''), '\"0\"');\n",
  "test/app.js": "var methods = require('../lib/utils').methods;\n\nmodule.exports = methods.length;\n",
};

const etagAt = {
  file: "lib/utils.js",
  target: { case: "symbol" as const, value: { name: "etag", lineHint: 1, occurrence: 0 } },
};

let env: FixtureRunner;

beforeEach(async () => {
  env = await startFixtureRunner({ files: FILES, languages: new LanguageRegistry([typescriptLanguage()]) });
});

afterEach(() => env?.close());

const places = (locations: Array<{ file: string; range?: { start?: { line: number; column: number } } }>) =>
  locations.map((l) => `${l.file}:${l.range?.start?.line}:${l.range?.start?.column}`).sort();

test("cold: the first find_references in lib/ finds the uses in tests that lib/ never imports, complete", async () => {
  const answer = await env.client.findReferences({ workspace: ws, at: etagAt, includeDeclaration: true, limit: 100 });
  expect(places(answer.locations)).toEqual([
    "lib/app.js:4:16",
    "lib/utils.js:1:9",
    "test/utils.js:4:26",
    "test/utils.js:5:26",
  ]);
  expect(answer.status?.partial).toBe(false);
  const methods = await env.client.findReferences({
    workspace: ws,
    at: { file: "lib/utils.js", target: { case: "symbol", value: { name: "methods", lineHint: 5, occurrence: 0 } } },
    includeDeclaration: false,
    limit: 100,
  });
  expect(places(methods.locations)).toEqual(["test/app.js:1:39"]);
});

// The same cold load as the references above, through rename: in `npm run test:faults`.
test.runIf(isFaultsTier())("cold: the first rename in lib/, applied, changes the uses in tests too", async () => {
  const answer = await env.client.renameSymbol({ workspace: ws, at: etagAt, newName: "entityTag", apply: true });
  expect(answer.applied).toBe(true);
  expect(env.read("test/utils.js")).toContain("utils.entityTag('x')");
  expect(env.read("test/utils.js")).not.toContain("etag");
  expect(env.read("lib/app.js")).toContain("utils.entityTag(body)");
});

test("cold: moving a file of lib/ updates the requires in tests that lib/ never imports, complete", async () => {
  const answer = await env.client.renameFile({ workspace: ws, file: "lib/utils.js", newFile: "lib/util2.js" });
  const edits = answer.edit!.files.flatMap((file) =>
    file.edits.map((edit) => `${file.file}:${edit.range?.start?.line} ${edit.newText}`),
  );
  expect(edits.sort()).toEqual(["lib/app.js:1 ./util2", "test/app.js:1 ../lib/util2", "test/utils.js:2 ../lib/util2"]);
  expect(answer.status?.partial).toBe(false);
});

test("a loose file's diagnostics are as when it is opened alone: JavaScript is not type-checked", async () => {
  const answer = await env.client.diagnostics({ workspace: ws, files: ["lib/app.js"], waitMs: 20_000 });
  const file = answer.files[0]!;
  expect(file.fresh).toBe(true);
  // Only tsserver's suggestion that a CommonJS module may be converted, never a type error.
  expect(file.diagnostics.every((d) => d.severity === 4)).toBe(true);
});

// Shaped like preactjs/signals' devtools-ui: a package with its own tsconfig.json whose sources
// import the core package through a `paths` alias, and a test outside its `include` that imports
// them relatively. An external project is the default project of every file it holds: one that
// pulled ui/src in (through the test's import) took those files from the ui project, which then
// no longer answered for them, so the uses in ui/src were missing from a complete answer.
test("cold: a loose test importing a package's sources leaves their references to its project", async () => {
  const project = await startFixtureRunner({
    files: {
      "tsconfig.json": '{ "compilerOptions": { "strict": true }, "exclude": ["ui"] }\n',
      "core/index.ts": "export function signal(value: number): number {\n  return value;\n}\n",
      "ui/tsconfig.json":
        '{ "compilerOptions": { "strict": true, "paths": { "@core": ["../core/index.ts"] } }, "include": ["src"] }\n',
      "ui/src/model.ts": 'import { signal } from "@core";\n\nexport const answer = signal(42);\n',
      "ui/test/model.test.ts": 'import { answer } from "../src/model";\n\nconsole.log(answer);\n',
      "ui/vitest.config.mjs": "export default {};\n",
    },
    languages: new LanguageRegistry([typescriptLanguage()]),
  });
  try {
    const answer = await project.client.findReferences({
      workspace: ws,
      at: { file: "core/index.ts", target: { case: "symbol", value: { name: "signal", lineHint: 1, occurrence: 0 } } },
      includeDeclaration: true,
      limit: 100,
    });
    expect(places(answer.locations)).toEqual(["core/index.ts:1:17", "ui/src/model.ts:1:10", "ui/src/model.ts:3:23"]);
    expect(answer.status?.partial).toBe(false);
    // The test's own uses are still found (it is opened, in an inferred project of its own).
    const uses = await project.client.findReferences({
      workspace: ws,
      at: {
        file: "ui/src/model.ts",
        target: { case: "symbol", value: { name: "answer", lineHint: 3, occurrence: 0 } },
      },
      includeDeclaration: true,
      limit: 100,
    });
    expect(places(uses.locations)).toEqual([
      "ui/src/model.ts:3:14",
      "ui/test/model.test.ts:1:10",
      "ui/test/model.test.ts:3:13",
    ]);
  } finally {
    await project.close();
  }
});
