// The deployment, run: the gateway and TypeScript runner images built with buildah from the
// shipped Dockerfiles, the local overlay rendered with `kubectl kustomize` and run with
// `podman kube play` (three NATS servers, one gateway, one runner, a workspaces volume holding a
// small TypeScript project), installed the way docs/deploy.md says (src/localDeployment.ts). Then
// the official MCP client calls the gateway from the host with an API key. Everything it made is
// removed afterwards, also when a step fails.

import { readFileSync } from "node:fs";
import { DIAGNOSTICS_STREAM, RUNNER_REGISTRY_BUCKET } from "@lspmesh/events";
import { needs, waitFor } from "@lspmesh/test-kit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, credsAuthenticator } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type LocalDeployment, startLocalDeployment } from "../src/localDeployment.js";

type ToolResult = { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, unknown> };

let deployment: LocalDeployment | undefined;
let client: Client | undefined;

const text = (result: ToolResult) => result.content.map((part) => part.text ?? "").join("\n");

// Images are built with buildah and run with podman: without them (outside CI) the suite is skipped.
describe.skipIf(!needs("podman", "the local deployment (test:deploy)"))("the local overlay under podman", () => {
  beforeAll(async () => {
    deployment = await startLocalDeployment({ runners: 1 });
    client = await deployment.mcpClient();
  }, 900_000);

  afterAll(async () => {
    await deployment?.close();
  }, 120_000);

  async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return (await client!.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolResult;
  }

  test("find_definition through the gateway answers from the runner's TypeScript server", async () => {
    // The runner registers in NATS once it is up; until the gateway sees it, calls are UNAVAILABLE.
    const result = await waitFor(
      "a runner registered with the gateway",
      async () => {
        const answer = await call("find_definition", {
          workspace: "web",
          file: "src/main.ts",
          symbol: "PoliteGreeter",
          line: 3,
        });
        return !/UNAVAILABLE|SERVER_STARTING/.test(text(answer)) && answer;
      },
      // Each refused call is a log line in the gateway: a few a second, not forty.
      { timeoutMs: 120_000, intervalMs: 250 },
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await deployment!.logs()}`);
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(text(result)).toContain("src/greeter.ts:7:14");
  });

  test("diagnostics through the gateway report the type error, complete", async () => {
    const result = await call("diagnostics", { workspace: "web", files: ["src/broken.ts"], wait_ms: 20_000 });
    expect(result.isError, text(result)).toBeFalsy();
    const files = result.structuredContent?.files as Array<{ file: string; diagnostics: Array<{ message: string }> }>;
    expect(files.map((file) => file.file)).toEqual(["src/broken.ts"]);
    expect(files[0]!.diagnostics.map((d) => d.message).join("\n")).toMatch(/not assignable to type 'number'/);
    expect(result.structuredContent?.partial).toBe(false);
  });

  test("another tenant's workspace is not found with acme's key", async () => {
    const result = await call("document_symbols", { workspace: "shop", file: "src/main.ts" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^NOT_FOUND/);
  });

  test("NATS is three servers, and what lspmesh made in JetStream has three replicas", async () => {
    const nc = await connect({
      servers: deployment!.nats.map((server) => server.url),
      authenticator: credsAuthenticator(new TextEncoder().encode(readFileSync(deployment!.adminCreds, "utf8"))),
    });
    try {
      const jsm = await jetstreamManager(nc);
      for (const stream of [DIAGNOSTICS_STREAM, `KV_${RUNNER_REGISTRY_BUCKET}`, "KV_lspmesh-control"]) {
        const info = await jsm.streams.info(stream);
        expect(info.config.num_replicas, stream).toBe(3);
        const peers = [info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)];
        expect(peers.sort(), stream).toEqual(deployment!.nats.map((server) => server.name).sort());
      }
    } finally {
      await nc.close();
    }
  });

  test("everything is removed afterwards: no pod, container, volume or network left", async () => {
    await deployment!.close();
    expect(await deployment!.leftovers()).toEqual([]);
  });
});
