// The runner's public face, seen from a gateway: Describe says what it serves, and every call is
// logged with the gateway's request id (`x-request-id`) so one tool call can be followed across
// both services' logs.
import { createClient, Metadata } from "@lspmesh/grpc";
import { REQUEST_ID_METADATA, Runner } from "@lspmesh/proto";
import { fixtureWorkspace } from "@lspmesh/test-kit";
import { expect, test } from "vitest";
import { startRunner } from "../src/startRunner.js";

const ws = { tenant: "local", workspace: "default" };

test("Describe lists the served languages with their extensions; calls are logged with their request id", async () => {
  using fixture = fixtureWorkspace("typescript-basic");
  const entries: Array<Record<string, unknown>> = [];
  const runner = await startRunner(
    { listen: "127.0.0.1:0", workspaces: { dir: fixture.dir, ...ws } },
    { log: (entry) => entries.push(entry) },
  );
  const client = createClient(Runner, runner.address);
  try {
    const description = await client.describe({});
    const typescript = description.languages.find((language) => language.id === "typescript");
    expect(typescript?.extensions).toEqual(expect.arrayContaining([".ts", ".tsx", ".js"]));

    const withId = (id: string) => {
      const metadata = new Metadata();
      metadata.set(REQUEST_ID_METADATA, id);
      return { metadata, timeoutMs: 30_000 };
    };
    await client.documentSymbols({ workspace: ws, file: "src/greeter.ts" }, withId("req-answered-1"));
    await expect(
      client.documentSymbols({ workspace: ws, file: "src/missing.ts" }, withId("req-refused-2")),
    ).rejects.toThrow();

    const rpcs = entries.filter((entry) => entry.msg === "rpc");
    expect(rpcs).toContainEqual(
      expect.objectContaining({ level: "debug", method: "documentSymbols", requestId: "req-answered-1" }),
    );
    expect(rpcs).toContainEqual(
      expect.objectContaining({
        level: "info",
        method: "documentSymbols",
        requestId: "req-refused-2",
        code: "NOT_FOUND",
      }),
    );
  } finally {
    client.close();
    await runner.close();
  }
});
