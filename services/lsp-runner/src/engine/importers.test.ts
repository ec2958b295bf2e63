import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect, test } from "vitest";
import { findImporters, importsAny, readsImportsOf } from "./importers.js";

test("TypeScript relative specifiers resolve by extension, index and .js written for .ts", () => {
  const targets = new Set(["src/greeter.ts", "src/util/index.ts"]);
  expect(importsAny("src/main.ts", 'import { a } from "./greeter";', targets)).toBe(true);
  expect(importsAny("src/deep/x.ts", "export * from '../greeter.js';", targets)).toBe(true);
  expect(importsAny("src/x.ts", 'const u = await import("./util");', targets)).toBe(true);
  expect(importsAny("src/x.ts", 'import { a } from "greeter";', targets)).toBe(false);
  expect(importsAny("src/x.ts", 'import { a } from "./greeter2";', targets)).toBe(false);
});

test("Python absolute (by any module suffix) and relative imports", () => {
  const targets = new Set(["src/greeter.py"]);
  expect(importsAny("src/main.py", "from greeter import make_greeting", targets)).toBe(true);
  expect(importsAny("other/x.py", "import src.greeter as g", targets)).toBe(true);
  expect(importsAny("src/x.py", "from . import greeter", targets)).toBe(true);
  expect(importsAny("src/x.py", "from .greeter import a", targets)).toBe(true);
  expect(importsAny("src/x.py", "import greeting", targets)).toBe(false);
});

test("Python statements are read one at a time: a list in parentheses spans lines, aliases are dropped", () => {
  const targets = new Set(["src/greeter.py"]);
  expect(importsAny("src/main.py", "from os import path\nimport src.greeter\n", targets)).toBe(true);
  expect(importsAny("src/main.py", "import os as o, greeter as g\n", targets)).toBe(true);
  expect(importsAny("src/x.py", "from . import (\n    other,\n    greeter,\n)\n", targets)).toBe(true);
  expect(importsAny("src/main.py", "from os import path  # greeter\nx = 1\n", targets)).toBe(false);
});

test("C and C++ includes: beside the includer, or by a trailing part of the header's path", () => {
  const targets = new Set(["lib/sds.h"]);
  expect(importsAny("lib/sds.c", '#include "sds.h"\n', targets)).toBe(true);
  expect(importsAny("src/net.c", "#include <lib/sds.h>\n", targets)).toBe(true);
  expect(importsAny("src/net.c", '  #  include "../lib/sds.h"\n', targets)).toBe(true);
  expect(importsAny("src/net.cpp", '#include "sds.hpp"\n#include "other/sds.h"\n', targets)).toBe(false);
  expect(importsAny("src/net.c", '// #include "sds.h" is not needed\n', targets)).toBe(false);
});

test("imports are read in TypeScript/JavaScript, Python and C/C++ files only", () => {
  expect(["a.ts", "b.py", "c.h", "d.cpp", "e.mjs"].map(readsImportsOf)).toEqual([true, true, true, true, true]);
  expect(["main.go", "lib.rs", "init.lua"].map(readsImportsOf)).toEqual([false, false, false]);
});

test("importers through a package's __init__.py and a folder's index module count, direct ones first", async () => {
  const root = mkdtempSync(join(tmpdir(), "lspmesh-importers-"));
  try {
    const files: Record<string, string> = {
      // As encode/httpx: tests reach httpx/_models.py through `import httpx`.
      "httpx/__init__.py": "from ._models import *\n",
      "httpx/_models.py": "class Headers: ...\n",
      "httpx/_client.py": "from ._models import Headers\n",
      "tests/test_headers.py": "import httpx\n",
      "tests/test_other.py": "import json\n",
      "web/lib/index.ts": 'export * from "./greeter";\n',
      "web/lib/greeter.ts": "export const greet = 1;\n",
      "web/app.ts": 'import { greet } from "./lib";\n',
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
    const python = await findImporters(root, ["httpx/_models.py"], new Set([".py"]));
    expect(python.files).toEqual(["httpx/__init__.py", "httpx/_client.py", "tests/test_headers.py"]);
    const script = await findImporters(root, ["web/lib/greeter.ts"], new Set([".ts"]));
    expect(script.files).toEqual(["web/lib/index.ts", "web/app.ts"]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
