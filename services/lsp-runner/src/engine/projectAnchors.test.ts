import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, expect, test } from "vitest";
import type { LanguageServerConfig } from "../lsp/languages/languageRegistry.js";
import { firstOpenableFile, projectAnchors, sourcesBeforeTests } from "./projectAnchors.js";

const typescript = {
  id: "typescript",
  extensions: { ".ts": "typescript", ".js": "javascript" },
} as unknown as LanguageServerConfig;
const python = { id: "python", extensions: { ".py": "python" } } as unknown as LanguageServerConfig;
const dirs: string[] = [];

function workspace(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), "lspmesh-anchors-"));
  dirs.push(dir);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test("one anchor per project: its included TypeScript first; a solution file with files: [] has none", async () => {
  const dir = workspace({
    "eslint.config.js": "export default [];",
    "tsconfig.json": '{ "files": [], "references": [{ "path": "./packages/a" }] }',
    "packages/a/tsconfig.json": '{ "include": ["lib/**/*"] } // comment',
    "packages/a/build.js": "x",
    "packages/a/lib/index.ts": "export {};",
    "tools/tsconfig.json": "{}",
    "tools/gen.ts": "export {};",
  });
  const found = await projectAnchors(dir, typescript, 1024 * 1024);
  // packages/a's included file, tools/, and the inferred project of the loose root file.
  expect(found.anchors.sort()).toEqual(["eslint.config.js", "packages/a/lib/index.ts", "tools/gen.ts"]);
  expect(found.notLoaded).toBe(0);
});

test("a config extending another without include holds its own folder, not the base's (preactjs/signals' docs)", async () => {
  const dir = workspace({
    "tsconfig.json": '{ "compilerOptions": { "strict": true }, "exclude": ["docs"] }',
    "docs/tsconfig.json": '{ "extends": "../tsconfig.json", "exclude": ["node_modules", "dist"] }',
    "docs/demos/react/tsconfig.json": '{ "extends": "../../tsconfig.json" }',
    "global.d.ts": "export {};",
    "packages/core/src/index.ts": "export {};",
    "docs/index.ts": "export {};",
    "docs/demos/react/app.ts": "export {};",
  });
  const found = await projectAnchors(dir, typescript, 1024 * 1024);
  const files = (name: string) => {
    const project = found.projects.find((candidate) => candidate.name === name)!;
    return { unique: [...project.unique].sort(), shared: [...project.shared].sort() };
  };
  expect(files("docs/tsconfig.json")).toEqual({ unique: ["docs/index.ts"], shared: ["docs/demos/react/app.ts"] });
  expect(files("docs/demos/react/tsconfig.json")).toEqual({ unique: [], shared: ["docs/demos/react/app.ts"] });
  expect(files("tsconfig.json").unique).toEqual(["global.d.ts", "packages/core/src/index.ts"]);
  // Every project is loaded: docs through a file of its own, the react demos through theirs.
  expect(found.anchors.sort()).toEqual(["docs/demos/react/app.ts", "docs/index.ts", "global.d.ts"]);
});

test("binary and oversized files are never anchors: skipped with the reason, the next one used", async () => {
  const dir = workspace({
    "a_blob.py": Buffer.from([0x50, 0x00, 0x01, 0x02]),
    "b_big.py": "x = 1\n".repeat(400),
    "c_main.py": "print(1)\n",
  });
  const found = await projectAnchors(dir, python, 1024);
  expect(found.anchors).toEqual(["c_main.py"]);
  expect(found.skipped).toEqual([
    { file: "a_blob.py", reason: "binary" },
    { file: "b_big.py", reason: "larger than 0.0 MiB" },
  ]);
  expect(await firstOpenableFile(dir, python, 1024)).toBe("c_main.py");
});

test("a solution tsconfig's referenced configs are projects; the tests project is anchored on a test file", async () => {
  const dir = workspace({
    "tsconfig.json":
      '{ "files": [], "references": [{ "path": "./tsconfig.build.json" }, { "path": "./tsconfig.spec.json" }] }',
    "tsconfig.base.json": '{ "compilerOptions": { "strict": true } }',
    "tsconfig.build.json":
      '{ "extends": "./tsconfig.base.json", "include": ["src/**/*.ts"], "exclude": ["src/**/*.test.ts"] /* no tests */ }',
    "tsconfig.spec.json": '{ "extends": "./tsconfig.base.json", "include": ["src"] }',
    "src/compose.ts": "export {};",
    "src/compose.test.ts": "export {};",
  });
  const found = await projectAnchors(dir, typescript, 1024 * 1024);
  expect(found.anchors.sort()).toEqual(["src/compose.test.ts", "src/compose.ts"]);
});

test("a workspace without projects is anchored on a source file, not a test file listed before it", async () => {
  const go = { id: "go", extensions: { ".go": "go" } } as unknown as LanguageServerConfig;
  const dir = workspace({
    "bool_func_go1.21_test.go": "package flag\n",
    "bool.go": "package flag\n",
    "flag.go": "package flag\n",
  });
  expect((await projectAnchors(dir, go, 1024)).anchors).toEqual(["bool.go"]);
  expect(await firstOpenableFile(dir, go, 1024)).toBe("bool.go");
});

test("headers come after source files, test files (by the built-in languages' conventions) after both", () => {
  expect(
    sourcesBeforeTests([
      "tests/helpers.py",
      "test_main.py",
      "src/app.test.ts",
      "src/app.spec.tsx",
      "pkg/flag_test.go",
      "__tests__/a.js",
      "src/contest.ts",
      "src/latest_test_data.py",
      "include/uv.h",
      "src/app.ts",
    ]),
  ).toEqual([
    "src/contest.ts",
    "src/latest_test_data.py",
    "src/app.ts",
    "include/uv.h",
    "tests/helpers.py",
    "test_main.py",
    "src/app.test.ts",
    "src/app.spec.tsx",
    "pkg/flag_test.go",
    "__tests__/a.js",
  ]);
});
