import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { nestedGoModuleOf, outsideGoModule } from "./goModuleScope.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-go-scope-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (file: string, text = "") => {
  mkdirSync(join(root, file, ".."), { recursive: true });
  writeFileSync(join(root, file), text);
};

// As go-chi/chi: packages of the module in _examples/, two examples with a go.mod of their own.
const sources = [
  "chi.go",
  "mux_test.go",
  "middleware/logger.go",
  "middleware/testdata/fixture.go",
  "_examples/hello-world/main.go",
  "_examples/rest/main.go",
  "_examples/versions/data/article.go",
  "internal/_gen/gen.go",
];

test("folders ./... skips and nested modules taking local code are outside; testdata is not counted", async () => {
  write("go.mod", "module github.com/go-chi/chi/v5\n");
  write("_examples/rest/go.mod", "module rest-example\n\nreplace github.com/go-chi/chi/v5 => ../../\n");
  write("_examples/versions/go.mod", "module versions\n\nreplace (\n\tgithub.com/go-chi/chi/v5 => ./../..\n)\n");
  expect(await outsideGoModule(root, sources)).toEqual({
    outside: [
      "_examples/hello-world/main.go",
      "_examples/rest/main.go",
      "_examples/versions/data/article.go",
      "internal/_gen/gen.go",
    ],
    nestedModules: ["_examples/rest", "_examples/versions"],
  });
});

test("a nested module requiring published versions only is another module's code: not counted", async () => {
  // As go-chi/chi's _examples/rest: it requires github.com/go-chi/chi/v5 v5.0.1, not the workspace's.
  write("go.mod", "module github.com/go-chi/chi/v5\n");
  write("_examples/rest/go.mod", "module rest-example\n\nrequire github.com/go-chi/chi/v5 v5.0.1\n");
  expect(await outsideGoModule(root, ["chi.go", "_examples/rest/main.go", "_examples/hello-world/main.go"])).toEqual({
    outside: ["_examples/hello-world/main.go"],
    nestedModules: [],
  });
});

test("a module below the root in an ordinary folder is outside too", async () => {
  write("go.mod", "module example.com/a\n");
  write("tools/go.mod", "module example.com/a/tools\n\nreplace example.com/a => ../\n");
  expect(await outsideGoModule(root, ["a.go", "tools/gen.go", "toolsx/b.go"])).toEqual({
    outside: ["tools/gen.go"],
    nestedModules: ["tools"],
  });
});

test("nothing when every file is the root module's, with no go.mod at the root, or with a go.work", async () => {
  expect(await outsideGoModule(root, sources)).toBeUndefined();
  write("go.mod", "module example.com/a\n");
  expect(await outsideGoModule(root, ["a.go", "pkg/b.go", "pkg/testdata/c.go"])).toBeUndefined();
  write("go.work", "go 1.22\nuse (\n\t.\n\t./_examples/rest\n)\n");
  expect(await outsideGoModule(root, sources)).toBeUndefined();
});

test("a file's own module below the root is named, the root module's files are not", async () => {
  write("go.mod", "module github.com/go-chi/chi/v5\n");
  write("_examples/rest/go.mod", "module rest-example\n\nrequire github.com/go-chi/chi/v5 v5.0.1\n");
  expect(await nestedGoModuleOf(root, "_examples/rest/main.go")).toBe("_examples/rest");
  expect(await nestedGoModuleOf(root, "_examples/rest/handlers/a.go")).toBe("_examples/rest");
  expect(await nestedGoModuleOf(root, "_examples/hello-world/main.go")).toBeUndefined();
  expect(await nestedGoModuleOf(root, "chi.go")).toBeUndefined();
  write("go.work", "go 1.22\nuse (\n\t.\n\t./_examples/rest\n)\n");
  expect(await nestedGoModuleOf(root, "_examples/rest/main.go")).toBeUndefined();
});
