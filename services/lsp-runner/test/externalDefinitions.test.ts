// A definition in a library outside the workspace (TypeScript's own lib files, pyright's bundled
// typeshed) is shown, marked external and named without the host's paths; never "not found".
import { createClient, type ServiceClient } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { fixtureWorkspace } from "@lspmesh/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  LanguageRegistry,
  pythonLanguage,
  type RunnerServer,
  SingleWorkspaceLocator,
  startRunnerServer,
  typescriptLanguage,
} from "./runnerInternals.js";

const ws = { tenant: "local", workspace: "default" };
const typescript = fixtureWorkspace("typescript-basic");
const python = fixtureWorkspace("python-basic");
const runners: RunnerServer[] = [];

async function runner(dir: string): Promise<ServiceClient<typeof Runner.method>> {
  const server = await startRunnerServer({
    listen: "127.0.0.1:0",
    locator: new SingleWorkspaceLocator(dir, ws.tenant, ws.workspace),
    languages: new LanguageRegistry([typescriptLanguage(), pythonLanguage()]),
  });
  runners.push(server);
  return createClient(Runner, server.address);
}

let tsClient: ServiceClient<typeof Runner.method>;
let pyClient: ServiceClient<typeof Runner.method>;

beforeAll(async () => {
  tsClient = await runner(typescript.dir);
  pyClient = await runner(python.dir);
});

afterAll(async () => {
  tsClient?.close();
  pyClient?.close();
  for (const server of runners) await server.close();
  typescript[Symbol.dispose]();
  python[Symbol.dispose]();
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

test("Python: print is in pyright's bundled typeshed, shown external without host paths", async () => {
  // src/main.py line 6: `print(wave, greeter.greet("you"))`
  const answer = await pyClient.findDefinition({
    workspace: ws,
    at: { file: "src/main.py", target: { case: "symbol", value: { name: "print", lineHint: 6, occurrence: 0 } } },
  });
  expect(answer.locations.length).toBeGreaterThan(0);
  const [location] = answer.locations;
  expect(location?.external).toBe(true);
  expect(location?.file).toMatch(/^node_modules\/pyright\/.*builtins\.pyi$/);
});
