// A cold pyright on a workspace of many modules: it sends no progress and answers at once from
// what it has analysed so far. The first workspace-wide answers must be complete or say they may
// not be (partial), never empty-and-complete; once warm they must equal the full answer.
import { ServerState } from "@lspmesh/proto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LanguageRegistry, pythonLanguage } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const MODULES = 60;
let env: FixtureRunner;
let client: FixtureRunner["client"];

beforeAll(async () => {
  // pkg/core.py declares `shared_helper`; every module mN.py calls it, and declares its own class.
  const files: Record<string, string> = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def shared_helper(value: int) -> int:\n    return value + 1\n",
    "pyrightconfig.json": JSON.stringify({ include: ["pkg"] }),
  };
  for (let i = 0; i < MODULES; i++) {
    files[`pkg/m${i}.py`] =
      `from pkg.core import shared_helper\n\n\nclass Widget${i}:\n    def size(self) -> int:\n        return shared_helper(${i})\n`;
  }
  env = await startFixtureRunner({ files, languages: new LanguageRegistry([pythonLanguage()]) });
  client = env.client;
});

afterAll(() => env?.close());

test("the first answers of a cold pyright are complete or marked partial, and equal the warm ones", async () => {
  const symbols = await client.workspaceSymbols({ workspace: ws, query: "Widget59", language: "python", limit: 10 });
  const foundSymbol = symbols.symbols.some((symbol) => symbol.name === "Widget59");
  expect(foundSymbol || symbols.status?.partial, "an empty first workspace_symbols must be partial").toBe(true);

  const references = () =>
    client.findReferences({
      workspace: ws,
      at: {
        file: "pkg/core.py",
        target: { case: "symbol", value: { name: "shared_helper", lineHint: 1, occurrence: 0 } },
      },
      includeDeclaration: true,
      limit: 1000,
    });
  const first = await references();
  // The declaration, and one import and one call in each module.
  const complete = 1 + 2 * MODULES;
  if (!first.status?.partial) expect(first.locations).toHaveLength(complete);
  expect(first.status?.state === ServerState.READY || first.status?.partial).toBe(true);

  const warm = await references();
  expect(warm.status?.partial).toBe(false);
  expect(warm.locations).toHaveLength(complete);
});
