// A tool call that asked for no progress is answered as one JSON body (no SSE stream); one that
// asked for progress still gets a stream. Real gateway over HTTP with the official MCP client; the
// runner is a real gRPC server answering hover.
import { ServerState } from "@lspmesh/proto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
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

/** A gateway in front of a runner whose hover answers at once; and the content type of each answer. */
async function setup() {
  const runner = await serveRunnerOverGrpc({
    hover: async () => ({
      status: { state: ServerState.READY, language: "typescript", server: "test" },
      contents: "const a: number",
    }),
  });
  cleanups.push(() => runner.close());
  const gateway = await startGateway({
    host: "127.0.0.1",
    port: 0,
    router: new StaticRunnerRouter(runner.address),
    workspaces: new StaticWorkspaceResolver({ tenant: "local", workspace: "default" }),
    authenticator: new NoTokenAuthenticator({ tenant: "local", subject: "test", scopes: ["lsp:read"] }),
  });
  cleanups.push(() => gateway.close());
  const answers: Array<{ method: string; contentType: string | null }> = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : {};
    answers.push({ method: body.method ?? "", contentType: response.headers.get("content-type") });
    return response;
  };
  const client = new Client({ name: "json-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { fetch: recording }));
  cleanups.push(() => client.close());
  return { client, answers };
}

const hoverArgs = { name: "hover", arguments: { file: "src/a.ts", line: 1, column: 1 } };

test("a tool call without a progress token is answered with a JSON body", async () => {
  const { client, answers } = await setup();
  const result = await client.callTool(hoverArgs);
  expect(JSON.stringify(result.content)).toContain("const a: number");
  expect(answers.find((answer) => answer.method === "tools/call")?.contentType).toBe("application/json");
  expect(answers.find((answer) => answer.method === "initialize")?.contentType).toBe("application/json");
});

test("a tool call that asks for progress is answered with a stream", async () => {
  const { client, answers } = await setup();
  const result = await client.callTool(hoverArgs, { onprogress: () => {} });
  expect(JSON.stringify(result.content)).toContain("const a: number");
  expect(answers.find((answer) => answer.method === "tools/call")?.contentType).toBe("text/event-stream");
});
