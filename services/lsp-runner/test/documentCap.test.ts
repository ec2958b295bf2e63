// Open documents are capped per session: past the cap the least recently used one is closed
// (didClose), and it is opened again when needed. Real typescript-language-server.
import { pathToFileURL } from "node:url";
import { type FixtureWorkspace, fixtureWorkspace } from "@lspmesh/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { LanguageSession } from "../src/lsp/session/languageSession.js";
import { WorkspacePaths } from "../src/workspace/workspacePaths.js";
import { SessionManager, typescriptLanguage } from "./runnerInternals.js";

let fixture: FixtureWorkspace;
let sessions: SessionManager;
let session: LanguageSession;
let paths: WorkspacePaths;

beforeAll(async () => {
  fixture = fixtureWorkspace("typescript-basic");
  paths = await WorkspacePaths.open(fixture.dir);
  sessions = new SessionManager({ maxOpenDocuments: 2 });
  session = await sessions.get({ tenant: "local", workspace: "default", root: paths.root }, typescriptLanguage());
});

afterAll(async () => {
  await sessions?.close();
  fixture?.[Symbol.dispose]();
});

const open = async (file: string) => session.syncDocument(await paths.resolveFile(file), "typescript");
const openFiles = () => session.openDocuments().map((d) => d.uri.slice(d.uri.lastIndexOf("/") + 1));

test("past the cap the least recently used document is closed, and reopened when used again", async () => {
  await open("src/main.ts");
  await open("src/greeter.ts");
  await open("src/main.ts"); // main.ts is now the most recently used
  await open("src/broken.ts");
  expect(openFiles()).toEqual(["main.ts", "broken.ts"]);
  const greeterUri = pathToFileURL(`${paths.root}/src/greeter.ts`).href;
  expect(session.document(greeterUri)).toBeUndefined();
  expect(session.diagnostics.get(greeterUri)).toBeUndefined();

  const reopened = await open("src/greeter.ts");
  // Versions only grow: the reopened document continues after the version it was closed at.
  expect(reopened.version).toBe(2);
  expect(openFiles()).toEqual(["broken.ts", "greeter.ts"]);
  // The server still answers for the reopened document.
  const symbols = await session.request<Array<{ name: string }>>("textDocument/documentSymbol", {
    textDocument: { uri: greeterUri },
  });
  expect(symbols.map((s) => s.name)).toContain("makeGreeting");
});
