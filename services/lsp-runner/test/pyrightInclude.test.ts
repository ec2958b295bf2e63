// A Python package whose pyproject.toml limits pyright to src/ (as pallets/click does): pyright
// then never searches tests/, so references and renames asked in src/ miss the uses there. The
// answer says so (partial, naming the setting and the files), and a rename is not applied from it.
// Real pyright.
import { GrpcStatus } from "@lspmesh/grpc";
import { HierarchyRequest_Direction } from "@lspmesh/proto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LanguageRegistry, pythonLanguage } from "./runnerInternals.js";
import { failure, places, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const FILES: Record<string, string> = {
  "pyproject.toml": '[project]\nname = "greetings"\n\n[tool.pyright]\ninclude = ["src"]\n',
  "src/greetings/__init__.py": "",
  "src/greetings/core.py": 'def greet(name: str) -> str:\n    return "hi " + name\n',
  "src/greetings/cli.py": 'from greetings.core import greet\n\nprint(greet("cli"))\n',
  "tests/test_core.py":
    'from greetings.core import greet\n\n\ndef test_greet() -> None:\n    assert greet("x") == "hi x"\n',
  // Left out too, but without the name asked about: it cannot use it, so it is not counted.
  "tests/test_other.py": "def test_other() -> None:\n    assert 1 + 1 == 2\n",
};

let env: FixtureRunner;

beforeAll(async () => {
  env = await startFixtureRunner({ files: FILES, languages: new LanguageRegistry([pythonLanguage()]) });
});

afterAll(() => env?.close());

const greet = symbol("src/greetings/core.py", "greet", 1);

test("references asked in src/ say that tests/ was left out by pyright's include, and where that is set", async () => {
  const answer = await env.client.findReferences({ workspace: ws, at: greet, includeDeclaration: true, limit: 100 });
  expect(places(answer.locations)).toEqual([
    "src/greetings/cli.py:1:28",
    "src/greetings/cli.py:3:7",
    "src/greetings/core.py:1:5",
  ]);
  expect(answer.status?.partial).toBe(true);
  expect(answer.status?.note).toContain(
    'searches only the files its pyproject.toml includes (include = ["src"]) and those open: 1 file(s) left out that mention `greet` (tests/test_core.py) were not searched',
  );
});

test("a rename from such a view is previewed, never applied", async () => {
  const before = env.snapshot();
  const error = await failure(env.client.renameSymbol({ workspace: ws, at: greet, newName: "salute", apply: true }));
  expect([error.code, error.lspmeshCode]).toEqual([GrpcStatus.UNIMPLEMENTED, "UNSUPPORTED"]);
  expect(error.details).toContain("tests/test_core.py");
  expect(env.snapshot()).toEqual(before);
});

test("incoming calls say so too", async () => {
  const answer = await env.client.callHierarchy({
    workspace: ws,
    at: greet,
    direction: HierarchyRequest_Direction.INCOMING,
    depth: 1,
  });
  expect(answer.root?.children.map((child) => child.callSitesFile)).toEqual(["src/greetings/cli.py"]);
  expect(answer.status?.partial).toBe(true);
  expect(answer.status?.note).toContain(
    "1 file(s) left out that mention `greet` (tests/test_core.py) were not searched",
  );
});

test("once the file left out is open, pyright searches it: the answer is complete", async () => {
  await env.client.hover({ workspace: ws, at: symbol("tests/test_core.py", "greet", 5) });
  const answer = await env.client.findReferences({ workspace: ws, at: greet, includeDeclaration: true, limit: 100 });
  expect(places(answer.locations)).toContain("tests/test_core.py:5:12");
  expect(answer.status?.partial).toBe(false);
});
