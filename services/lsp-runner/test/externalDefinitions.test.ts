// A definition in a library outside the workspace (TypeScript's own lib files, pyright's bundled
// typeshed) is shown, marked external and named without the host's paths; never "not found".
// npm test asks TypeScript; the faults tier (npm run test:faults) asks pyright too.
import { isFaultsTier } from "@lspmesh/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LanguageRegistry, pythonLanguage, typescriptLanguage } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const languages = new LanguageRegistry([typescriptLanguage(), pythonLanguage()]);
let typescript: FixtureRunner;
let python: FixtureRunner;
let tsClient: FixtureRunner["client"];
let pyClient: FixtureRunner["client"];

beforeAll(async () => {
  typescript = await startFixtureRunner({ fixture: "typescript-basic", languages });
  tsClient = typescript.client;
  if (!isFaultsTier()) return;
  python = await startFixtureRunner({ fixture: "python-basic", languages });
  pyClient = python.client;
});

afterAll(async () => {
  await typescript?.close();
  await python?.close();
});

test("TypeScript: String.length is in TypeScript's lib, shown as node_modules/typescript/lib/…", async () => {
  // src/main.ts line 6: `export const total: number = makeGreeting("a").length;`
  const answer = await tsClient.findDefinition({
    workspace: ws,
    at: { file: "src/main.ts", target: { case: "symbol", value: { name: "length", lineHint: 6, occurrence: 0 } } },
  });
  expect(answer.locations.length).toBeGreaterThan(0);
  for (const location of answer.locations) {
    expect(location.external).toBe(true);
    expect(location.file).toMatch(/^node_modules\/typescript\/lib\/lib\.[\w.]+\.d\.ts$/);
    expect(location.snippet).toContain("length");
  }
});

test.runIf(isFaultsTier())(
  "Python: print is in pyright's bundled typeshed, shown external without host paths",
  async () => {
    // src/main.py line 6: `print(wave, greeter.greet("you"))`
    const answer = await pyClient.findDefinition({
      workspace: ws,
      at: { file: "src/main.py", target: { case: "symbol", value: { name: "print", lineHint: 6, occurrence: 0 } } },
    });
    expect(answer.locations.length).toBeGreaterThan(0);
    const [location] = answer.locations;
    expect(location?.external).toBe(true);
    expect(location?.file).toMatch(/^node_modules\/pyright\/.*builtins\.pyi$/);
  },
);
