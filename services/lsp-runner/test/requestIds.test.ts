// The runner's public face, seen from a gateway: Describe says what it serves, and every call is
// logged with the gateway's request id (`x-request-id`) so one tool call can be followed across
// both services' logs.
import { Metadata } from "@lspmesh/grpc";
import { REQUEST_ID_METADATA } from "@lspmesh/proto";
import { expect, test } from "vitest";
import { startFixtureRunner, ws } from "./support/fixtureRunner.js";

test("Describe lists the served languages with their extensions; calls are logged with their request id", async () => {
  const entries: Array<Record<string, unknown>> = [];
  await using env = await startFixtureRunner({ fixture: "typescript-basic", log: (entry) => entries.push(entry) });
  const { client } = env;
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
});
