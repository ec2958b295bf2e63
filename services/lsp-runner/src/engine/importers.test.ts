import { expect, test } from "vitest";
import { importsAny } from "./importers.js";

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
