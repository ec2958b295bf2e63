// Go modules below the workspace root with no go.mod or go.work at it: gopls before 0.15 (Debian
// 12's) loads none of them and keeps "Error loading workspace" open as work-done progress until
// the cause is fixed. That is a failure the server shows, not indexing: answers say so with
// gopls's own words (which name the fix) and do not wait for it to end.
import { ServerState } from "@lspmesh/proto";
import { needs, waitFor } from "@lspmesh/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { goLanguage, LanguageRegistry } from "./runnerInternals.js";
import { failure, symbol } from "./support/calls.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const FILES: Record<string, string> = {
  "a/go.mod": "module example.com/a\n\ngo 1.19\n",
  "a/a.go": 'package a\n\nfunc Greet(name string) string {\n\treturn "hi " + name\n}\n',
  "b/go.mod": "module example.com/b\n\ngo 1.19\n\nrequire example.com/a v0.0.0\n\nreplace example.com/a => ../a\n",
  "b/main.go": 'package main\n\nimport "example.com/a"\n\nfunc main() {\n\tprintln(a.Greet("x"))\n}\n',
};

describe.skipIf(!needs("gopls", "goWithoutModule"))("gopls that cannot load the workspace", () => {
  let env: FixtureRunner;

  beforeAll(async () => {
    env = await startFixtureRunner({ files: FILES, languages: new LanguageRegistry([goLanguage()]) });
  });

  afterAll(() => env?.close());

  test("is degraded, and its answers are partial with the error it shows, not 'indexing'", async () => {
    await env.client.hover({ workspace: ws, at: symbol("b/main.go", "Greet", 6) });
    // gopls shows the error a moment after its first answers.
    const status = await waitFor("gopls's load error", async () => {
      const answer = await env.client.workspaceStatus({ workspace: ws });
      return answer.languages.find((l) => l.language === "go" && l.state === ServerState.DEGRADED);
    });
    expect(status.language).toBe("go");
    const references = await env.client.findReferences({
      workspace: ws,
      at: symbol("a/a.go", "Greet", 3),
      includeDeclaration: true,
    });
    expect(references.status?.state).toBe(ServerState.DEGRADED);
    expect(references.status?.partial).toBe(true);
    expect(references.status?.note).toMatch(
      /^the go server reports "Error loading workspace: .+": answers may be incomplete$/,
    );
    expect(references.status?.note).not.toContain("indexing");
  });

  test("a request it fails names the load error it shows: the reason it could not answer", async () => {
    const error = await failure(env.client.findDefinition({ workspace: ws, at: symbol("b/main.go", "Greet", 6) }));
    expect(error.lspmeshCode).toBe("SERVER_FAILED");
    expect(error.details).toMatch(
      /\(the go server reports "Error loading workspace: .+": answers may be incomplete\)$/,
    );
  });
});
