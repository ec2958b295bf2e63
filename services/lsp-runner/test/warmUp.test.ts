// The warm-up list: sessions started with the runner, before any request, against a real
// typescript-language-server; entries that cannot be started are logged and skipped.
import { createClient } from "@lspmesh/grpc";
import { Runner, ServerState } from "@lspmesh/proto";
import { fixtureWorkspace } from "@lspmesh/test-kit";
import { expect, test } from "vitest";
import { SingleWorkspaceLocator, startRunnerServer } from "./runnerInternals.js";

test("listed sessions start before their first request; unknown entries are logged, not fatal", async () => {
  using fixture = fixtureWorkspace("typescript-basic");
  const logged: Array<Record<string, unknown>> = [];
  const runner = await startRunnerServer({
    listen: "127.0.0.1:0",
    locator: new SingleWorkspaceLocator(fixture.dir, "local", "default"),
    warmUp: [
      { tenant: "local", workspace: "missing", language: "typescript" },
      { tenant: "local", workspace: "default", language: "cobol" },
      { tenant: "local", workspace: "default", language: "typescript" },
    ],
    log: (entry) => logged.push(entry),
  });
  const client = createClient(Runner, runner.address);
  try {
    await runner.warmedUp;
    expect(await runner.sessions.pids()).toHaveLength(1);
    const status = await client.workspaceStatus({ workspace: { tenant: "local", workspace: "default" } });
    expect(status.languages.map((l) => l.language)).toEqual(["typescript"]);
    // Started, but it has not answered anything yet: not claimed ready.
    expect(status.languages[0]?.state).toBe(ServerState.INDEXING);
    expect(logged.filter((e) => e.level === "warn").map((e) => [e.msg, e.workspace, e.language])).toEqual([
      ["warm-up: workspace not found", "missing", "typescript"],
      ["warm-up: unknown language", "default", "cobol"],
    ]);
    const [pid] = await runner.sessions.pids();
    const answer = await client.hover({
      workspace: { tenant: "local", workspace: "default" },
      at: { file: "src/main.ts", target: { case: "symbol", value: { name: "greeter", lineHint: 3, occurrence: 0 } } },
    });
    expect(answer.contents).toContain("PoliteGreeter");
    expect(await runner.sessions.pids()).toEqual([pid]);
  } finally {
    client.close();
    await runner.close();
  }
});
