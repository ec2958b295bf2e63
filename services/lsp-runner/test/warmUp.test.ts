// The warm-up list: sessions started with the runner, before any request, against a real
// typescript-language-server; entries that cannot be started are logged and skipped.
import { ServerState } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { startFixtureRunner } from "./support/fixtureRunner.js";

test("listed sessions start before their first request; unknown entries are logged, not fatal", async () => {
  const logged: Array<Record<string, unknown>> = [];
  await using env = await startFixtureRunner({
    fixture: "typescript-basic",
    warmUp: [
      { tenant: "local", workspace: "missing", language: "typescript" },
      { tenant: "local", workspace: "default", language: "cobol" },
      { tenant: "local", workspace: "default", language: "typescript" },
    ],
    log: (entry) => logged.push(entry),
  });
  const { runner, client } = env;
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
});
