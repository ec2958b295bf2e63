// Safe by default on one machine: browser pages are refused unless their exact origin is allowed
// (a local server takes no token, so any local page could otherwise drive the write tools), and
// --read-only serves no tool that can write, over HTTP and over stdio. A real `lspmesh serve` and
// `lspmesh mcp`, the official MCP client.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FixtureWorkspace, fixtureWorkspace, startServe } from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as StdioClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { READ_ONLY_TOOLS } from "../src/toolCalls.js";

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/lspmesh.js", import.meta.url));
const WRITE_TOOLS = ["code_actions", "format_document", "rename_symbol", "rename_file", "apply_workspace_edit"];

let fixture: FixtureWorkspace;

beforeAll(() => {
  fixture = fixtureWorkspace("typescript-basic");
});

afterAll(() => {
  fixture?.[Symbol.dispose]();
});

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "page", version: "1" } },
});

const postFrom = (url: URL, origin?: string) =>
  fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(origin ? { origin } : {}),
    },
    body: initialize,
  });

test("a local page's Origin is refused by default, however local; clients without one are unaffected", async () => {
  await using serve = await startServe(fixture.dir);
  expect((await postFrom(serve.url)).status).toBe(200);
  // The server's own origin is same-origin: no other site's page.
  expect((await postFrom(serve.url, serve.url.origin)).status).toBe(200);
  for (const origin of ["http://localhost:3000", "http://127.0.0.1:5173", "https://evil.example"]) {
    const refused = await postFrom(serve.url, origin);
    expect(refused.status, origin).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("--allow-origin");
  }
});

test("--read-only with --allow-origin: only that exact origin, and no tool that writes", async () => {
  await using serve = await startServe(fixture.dir, ["--read-only", "--allow-origin", "http://localhost:3000"]);
  expect((await postFrom(serve.url, "http://localhost:3000")).status).toBe(200);
  expect((await postFrom(serve.url, "http://localhost:3001")).status).toBe(403);

  const client = new Client({ name: "e2e-read-only", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serve.url));
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain("find_definition");
    for (const tool of WRITE_TOOLS) expect(names).not.toContain(tool);
    const before = readFileSync(join(fixture.dir, "src/greeter.ts"), "utf8");
    const refused = await client
      .callTool({
        name: "rename_symbol",
        arguments: { file: "src/greeter.ts", symbol: "PoliteGreeter", line: 7, new_name: "Kind", apply: true },
      })
      .then(
        (result) => (result.isError ? JSON.stringify(result.content) : "answered"),
        (error: Error) => error.message,
      );
    expect(refused).toMatch(/not found|unknown tool/i);
    expect(readFileSync(join(fixture.dir, "src/greeter.ts"), "utf8")).toBe(before);
    const read = await client.callTool({
      name: "hover",
      arguments: { file: "src/main.ts", symbol: "greeter", line: 3 },
    });
    expect(read.isError).toBeFalsy();
  } finally {
    await client.close();
  }
});

test("lspmesh mcp --read-only over stdio lists no tool that writes", async () => {
  const client = new StdioClient({ name: "e2e-stdio-read-only", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", fixture.dir, "--read-only"],
      stderr: "pipe",
    }),
  );
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names.sort()).toEqual([...READ_ONLY_TOOLS].sort());
    for (const tool of WRITE_TOOLS) expect(names).not.toContain(tool);
  } finally {
    await client.close();
  }
});
