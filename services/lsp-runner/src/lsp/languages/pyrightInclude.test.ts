import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { outsidePyrightInclude } from "./pyrightInclude.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-pyright-include-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const sources = [
  "src/click/core.py",
  "src/click/globals.py",
  "tests/test_context.py",
  "tests/typing/typing_aliases.py",
  "docs/conf.py",
];

test("pyproject.toml's [tool.pyright] include: a folder covers everything below it", async () => {
  // As pallets/click.
  writeFileSync(
    join(root, "pyproject.toml"),
    '[project]\nname = "click"\n\n[tool.pyright]\npythonVersion = "3.10"\ninclude = ["src", "tests/typing"]\ntypeCheckingMode = "basic"\n',
  );
  expect(await outsidePyrightInclude(root, sources)).toEqual({
    config: "pyproject.toml",
    settings: ['include = ["src", "tests/typing"]'],
    outside: ["tests/test_context.py", "docs/conf.py"],
  });
});

test("pyrightconfig.json wins, with comments; wildcards and exclude count", async () => {
  writeFileSync(join(root, "pyproject.toml"), '[tool.pyright]\ninclude = ["src"]\n');
  writeFileSync(
    join(root, "pyrightconfig.json"),
    '{\n  // the package and its tests\n  "include": ["src/**", "tests/test_*.py",],\n  "exclude": ["src/click/core.py"]\n}\n',
  );
  expect(await outsidePyrightInclude(root, sources)).toEqual({
    config: "pyrightconfig.json",
    settings: ['include = ["src/**", "tests/test_*.py"]', 'exclude = ["src/click/core.py"]'],
    outside: ["src/click/core.py", "tests/typing/typing_aliases.py", "docs/conf.py"],
  });
});

test("no configuration, one without include or exclude, or one covering everything: nothing left out", async () => {
  expect(await outsidePyrightInclude(root, sources)).toBeUndefined();
  writeFileSync(join(root, "pyproject.toml"), '[tool.pyright]\ntypeCheckingMode = "strict"\n');
  expect(await outsidePyrightInclude(root, sources)).toBeUndefined();
  writeFileSync(join(root, "pyproject.toml"), '[tool.pyright]\ninclude = ["."]\n');
  expect(await outsidePyrightInclude(root, sources)).toBeUndefined();
  writeFileSync(join(root, "pyproject.toml"), "[tool.pyright\nbroken");
  expect(await outsidePyrightInclude(root, sources)).toBeUndefined();
});
