// `lspmesh mcp` as a desktop agent starts it: a child process speaking MCP on stdin/stdout.
// Embedded (runner in the process) and proxying to a gateway (here a `lspmesh serve`).
import { fileURLToPath } from "node:url";
import {
  descendantPids,
  type FixtureWorkspace,
  fixtureWorkspace,
  isRunning,
  startServe,
  waitFor,
} from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TOOL_CALLS } from "../src/toolCalls.js";

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/lspmesh.js", import.meta.url));

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

let fixture: FixtureWorkspace;

beforeAll(() => {
  fixture = fixtureWorkspace("typescript-basic");
});

afterAll(() => {
  fixture?.[Symbol.dispose]();
});

test("embedded: tools over stdio, and closing stdin stops every language server", async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", fixture.dir],
    stderr: "pipe",
  });
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid!;
  let children: number[] = [];
  try {
    const { tools } = await client.listTools();
    expect(tools.length).toBe(Object.keys(TOOL_CALLS).length);
    const result = (await client.callTool({
      name: "find_definition",
      arguments: { file: "src/main.ts", symbol: "PoliteGreeter", line: 3 },
    })) as ToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content[0]?.text).toContain("src/greeter.ts:7:14");
    children = descendantPids(pid);
    expect(children.length).toBeGreaterThan(0);
  } finally {
    await client.close();
  }
  await waitFor("lspmesh mcp and its language servers to exit", () => !isRunning(pid) && !children.some(isRunning));
});

test("proxy: forwards tools to a gateway with the token from the environment", async () => {
  await using serve = await startServe(fixture.dir);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "--gateway", serve.url.href],
    env: { ...process.env, LSPMESH_TOKEN: "unused-on-loopback" } as Record<string, string>,
    stderr: "pipe",
  });
  const client = new Client({ name: "e2e-proxy", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("search_symbols");
    const result = (await client.callTool({
      name: "hover",
      arguments: { file: "src/main.ts", symbol: "wave", line: 4 },
    })) as ToolResult;
    expect(result.content[0]?.text).toContain("const wave: string");
    const error = (await client.callTool({
      name: "hover",
      arguments: { file: "src/main.ts", line: 0, column: 1 },
    })) as ToolResult;
    expect(error.isError).toBe(true);
    expect(error.content[0]?.text).toMatch(/^INVALID_ARGUMENT: /);
  } finally {
    await client.close();
  }
});
