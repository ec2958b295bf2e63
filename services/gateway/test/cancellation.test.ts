// A call the MCP client gives up on (cancel or disconnect) cancels the runner's gRPC call, and
// the runner sees its request's signal abort (which cancels the language-server request). The
// runner here is a real gRPC server whose hover never answers: the only way to watch the cancel
// arrive on the runner side.
import type { ServiceImplementation } from "@lspmesh/grpc";
import type { Runner } from "@lspmesh/proto";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, expect, test } from "vitest";
import { NoTokenAuthenticator } from "../src/auth/authenticator.js";
import { startGateway } from "../src/gateway.js";
import { StaticRunnerRouter } from "../src/routing/staticRouter.js";
import { StaticWorkspaceResolver } from "../src/workspaces.js";
import { serveRunnerOverGrpc } from "./runnerOverGrpc.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  let started: () => void = () => {};
  let cancelled: () => void = () => {};
  const calls = {
    started: new Promise<void>((resolve) => {
      started = resolve;
    }),
    cancelled: new Promise<void>((resolve) => {
      cancelled = resolve;
    }),
  };
  const hover: ServiceImplementation<typeof Runner.method>["hover"] = (_request, context) =>
    new Promise((_resolve, reject) => {
      started();
      context.signal.addEventListener("abort", () => {
        cancelled();
        reject(new Error("cancelled"));
      });
    });
  const runner = await serveRunnerOverGrpc({ hover });
  cleanups.push(() => runner.close());
  const gateway = await startGateway({
    host: "127.0.0.1",
    port: 0,
    router: new StaticRunnerRouter(runner.address),
    workspaces: new StaticWorkspaceResolver({ tenant: "local", workspace: "default" }),
    authenticator: new NoTokenAuthenticator({ tenant: "local", subject: "test", scopes: ["lsp:read"] }),
    callTimeoutMs: 60_000,
  });
  cleanups.push(() => gateway.close());
  const client = new Client({ name: "cancel-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
  cleanups.push(() => client.close());
  return { client, calls, url: new URL(gateway.url) };
}

const hoverArgs = { name: "hover", arguments: { file: "src/a.ts", line: 1, column: 1 } };

test("a cancelled tool call cancels the runner call", async () => {
  const { client, calls } = await setup();
  const controller = new AbortController();
  const result = client.callTool(hoverArgs, undefined, { signal: controller.signal, timeout: 60_000 });
  await calls.started;
  controller.abort();
  await expect(result).rejects.toThrow();
  await calls.cancelled;
});

test("a client that disconnects cancels the runner call", async () => {
  const { client, calls } = await setup();
  const result = client.callTool(hoverArgs, undefined, { timeout: 60_000 }).catch(() => undefined);
  await calls.started;
  await client.close();
  await calls.cancelled;
  await result;
});

test("a 2026-07-28 client's cancelled call cancels the runner call", async () => {
  const { calls, url } = await setup();
  const client = new ClientV2(
    { name: "cancel-test-v2", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new TransportV2(url));
  cleanups.push(() => client.close());
  const controller = new AbortController();
  const result = client.callTool(hoverArgs, { signal: controller.signal, timeout: 60_000 });
  await calls.started;
  controller.abort();
  await expect(result).rejects.toThrow();
  await calls.cancelled;
});
