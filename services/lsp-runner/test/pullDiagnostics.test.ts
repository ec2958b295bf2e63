// Pull diagnostics (`textDocument/diagnostic`) against the real pyright, which registers them at
// run time: answers belong to the current content and are published like pushed ones. Runs on
// the in-process event bus, as single-machine mode does.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { waitFor } from "@lspmesh/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { InProcessEventBus, LanguageRegistry, type LanguageServerConfig } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const require = createRequire(import.meta.url);
const pyright: LanguageServerConfig = {
  id: "python",
  extensions: { ".py": "python" },
  command: process.execPath,
  args: [require.resolve("pyright/langserver.index.js"), "--stdio"],
  settings: { python: { analysis: { diagnosticMode: "openFilesOnly" } } },
};
const BROKEN = 'def greet(name: str) -> str:\n    return "hi " + name\n\n\ncount: int = greet("x")\n';

let bus: InProcessEventBus;
let env: FixtureRunner;
let dir: string;
let runner: FixtureRunner["runner"];
let client: FixtureRunner["client"];

beforeAll(async () => {
  bus = new InProcessEventBus();
  env = await startFixtureRunner({
    files: { "pkg/app.py": BROKEN },
    languages: new LanguageRegistry([pyright]),
    events: bus,
  });
  ({ dir, runner, client } = env);
});

afterAll(async () => {
  await env?.close();
  await bus?.close();
});

test("pyright's diagnostics are pulled for the current content, before and after an edit", async () => {
  const first = await client.diagnostics({ workspace: ws, files: ["pkg/app.py"], waitMs: 20_000 });
  expect(first.files[0]).toMatchObject({ fresh: true, version: 1 });
  expect(first.files[0]?.diagnostics.map((d) => [d.code, d.range?.start?.line, d.range?.start?.column])).toEqual([
    ["reportAssignmentType", 5, 14],
  ]);
  const [session] = await runner.sessions.sessionsOf(ws.tenant, ws.workspace);
  expect(session?.pullsDiagnostics).toBe(true);

  writeFileSync(join(dir, "pkg/app.py"), BROKEN.replace("count: int", "count: str"));
  const fixed = await client.diagnostics({ workspace: ws, files: ["pkg/app.py"], waitMs: 20_000 });
  expect(fixed.files[0]).toMatchObject({ fresh: true, version: 2, diagnostics: [] });

  // Published like pushed diagnostics: the latest per file, for the version they belong to.
  expect(bus.latestDiagnostics()).toMatchObject([
    {
      file: "pkg/app.py",
      language: "python",
      version: 2,
      contentSha256: fixed.files[0]?.contentSha256,
      diagnostics: [],
    },
  ]);
});

test("after a change on disk, pulled diagnostics are refreshed and published without a query", async () => {
  writeFileSync(join(dir, "pkg/app.py"), BROKEN.replace("count: int", "count: float"));
  const published = await waitFor("diagnostics of version 3 on the bus", () => {
    const latest = bus.latestDiagnostics()[0];
    return latest?.version === 3 ? latest : undefined;
  });
  expect(published.diagnostics.map((d) => [d.code, d.range.start.line])).toEqual([["reportAssignmentType", 5]]);
});
