// One endpoint serves both protocol eras, validates Host/Origin, and codes argument errors.
import { request as httpRequest } from "node:http";
import { type FixtureWorkspace, fixtureWorkspace, type ServeProcess, startServe } from "@lspmesh/test-kit";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, test } from "vitest";

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: unknown };

let fixture: FixtureWorkspace;
let serve: ServeProcess;

beforeAll(async () => {
  fixture = fixtureWorkspace("typescript-basic");
  serve = await startServe(fixture.dir);
});

afterAll(async () => {
  await serve?.stop();
  fixture?.[Symbol.dispose]();
});

test("a 2026-07-28 client (SDK v2, pinned) calls a tool", async () => {
  const client = new ClientV2(
    { name: "lspmesh-e2e-v2", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new TransportV2(serve.url));
  try {
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const result = (await client.callTool({
      name: "find_definition",
      arguments: { file: "src/main.ts", symbol: "PoliteGreeter", line: 3 },
    })) as ToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content[0]?.text).toContain("src/greeter.ts:7:14");
  } finally {
    await client.close();
  }
});

test("a 2025-era client (SDK v1) negotiates 2025-11-25 on the same endpoint", async () => {
  const client = new Client({ name: "lspmesh-e2e-v1", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(serve.url);
  await client.connect(transport);
  try {
    expect(transport.protocolVersion).toBe("2025-11-25");
    const bad = (await client.callTool({
      name: "hover",
      arguments: { file: "src/main.ts", line: 0, column: 1 },
    })) as ToolResult;
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/^INVALID_ARGUMENT: .*line is 1-based/);
    const crossField = (await client.callTool({
      name: "hover",
      arguments: { file: "src/main.ts", column: 3 },
    })) as ToolResult;
    expect(crossField.content[0]?.text).toMatch(/^INVALID_ARGUMENT: column needs line/);
    const otherWorkspace = (await client.callTool({
      name: "hover",
      arguments: { workspace: "someone-else", file: "src/main.ts", line: 1, column: 1 },
    })) as ToolResult;
    expect(otherWorkspace.content[0]?.text).toMatch(/^NOT_FOUND: unknown workspace 'someone-else'/);
  } finally {
    await client.close();
  }
});

test("HTTP surface: /healthz, 404 elsewhere, foreign Host and Origin refused", async () => {
  const base = new URL("/", serve.url);
  expect((await fetch(new URL("/healthz", base))).status).toBe(200);
  expect((await fetch(new URL("/nothing", base))).status).toBe(404);
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
  };
  const post = (headers: Record<string, string>) =>
    fetch(serve.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(initialize),
    });
  expect((await post({})).status).toBe(200);
  expect((await post({ origin: "https://evil.example" })).status).toBe(403);
  // fetch cannot forge Host; a raw request can (that is what DNS rebinding looks like).
  expect(await rawStatus(serve.url, { host: "evil.example" }, JSON.stringify(initialize))).toBe(403);
});

function rawStatus(url: URL, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}
