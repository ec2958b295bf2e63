// Every tool of docs/tools.md, called through `lspmesh serve` by both SDK generations: the 1.x
// SDK (2025-11-25) and the 2.x client pinned to 2026-07-28. Both validate structuredContent
// against each tool's outputSchema, so a passing call is also a schema check.

import { type FixtureWorkspace, fixtureWorkspace, type ServeProcess, startServe } from "@lspmesh/test-kit";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { READ_ONLY_TOOLS as READ_ONLY, TOOL_CALLS } from "../src/toolCalls.js";

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
};

/**
 * Tools the fixture's language server (typescript-language-server) does not offer: for these an
 * UNSUPPORTED tool error naming the server is the correct answer.
 */
export const UNSUPPORTED_BY_SERVER = new Set(["type_hierarchy"]);

const text = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("\n");

/** Checks one answer: a real answer, or (for operations the server lacks) UNSUPPORTED. */
export function expectAnswered(name: string, result: ToolResult): void {
  if (result.isError && UNSUPPORTED_BY_SERVER.has(name)) {
    expect(text(result), name).toMatch(/^UNSUPPORTED: /);
    return;
  }
  // One restart per workspace and language per 30 s: the second SDK generation's call is refused.
  if (result.isError && name === "restart_language_server") {
    expect(text(result), name).toMatch(/^RATE_LIMITED: /);
    return;
  }
  expect(result.isError, `${name}: ${text(result)}`).toBeFalsy();
  expect(result.structuredContent, name).toBeDefined();
}

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

interface AnyClient {
  listTools(): Promise<{
    tools: Array<{ name: string; outputSchema?: unknown; annotations?: Record<string, unknown> }>;
  }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

type OnProgress = (progress: { progress: number; total?: number; message?: string }) => void;

/** Each SDK generation's way of asking for progress on one call. */
const clients: Array<
  [
    string,
    () => Promise<AnyClient>,
    (client: AnyClient, name: string, args: object, onprogress: OnProgress) => Promise<unknown>,
  ]
> = [
  [
    "SDK v1 (2025-11-25)",
    async () => {
      const client = new Client({ name: "e2e-all-tools-v1", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(serve.url));
      return client as unknown as AnyClient;
    },
    (client, name, args, onprogress) =>
      (client as unknown as Client).callTool({ name, arguments: args as Record<string, unknown> }, undefined, {
        onprogress,
      }),
  ],
  [
    "SDK v2 client (2026-07-28)",
    async () => {
      const client = new ClientV2(
        { name: "e2e-all-tools-v2", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await client.connect(new TransportV2(serve.url));
      return client as unknown as AnyClient;
    },
    (client, name, args, onprogress) =>
      (client as unknown as ClientV2).callTool({ name, arguments: args as Record<string, unknown> }, { onprogress }),
  ],
];

describe.each(clients)("%s", (_name, connect, callWithProgress) => {
  let client: AnyClient;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  test("lists the whole catalogue with output schemas and correct annotations", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(TOOL_CALLS).sort());
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      const readOnly = READ_ONLY.has(tool.name);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(readOnly);
      // Restarting a server loses no file content: not destructive, though not read-only.
      expect(tool.annotations?.destructiveHint, tool.name).toBe(!readOnly && tool.name !== "restart_language_server");
      expect(tool.annotations?.idempotentHint, tool.name).toBe(readOnly || tool.name === "format_document");
    }
  });

  test.each(Object.entries(TOOL_CALLS))("%s answers", async (name, args) => {
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    expectAnswered(name, result);
  });

  test("long calls send progress notifications", async () => {
    const seen: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = (await callWithProgress(client, "batch", TOOL_CALLS.batch!, (p) => seen.push(p))) as ToolResult;
    expect(result.isError).toBeFalsy();
    expect(seen.map((p) => p.message)).toContain("2 of 2 queries answered");
    expect(seen.map((p) => p.progress)).toEqual([...seen.map((p) => p.progress)].sort((a, b) => a - b));
  });

  test("answers carry the language server's results", async () => {
    const call = async (name: string) => (await client.callTool({ name, arguments: TOOL_CALLS[name]! })) as ToolResult;
    expect(text(await call("find_type_definition"))).toContain("src/greeter.ts:7:14");
    expect(text(await call("find_implementations"))).toContain("src/greeter.ts:7:14");
    const search = (await call("search_symbols")).structuredContent as {
      symbols: Array<{ name: string; workspace: string }>;
      partial: boolean;
    };
    expect(search.symbols.map((s) => s.name)).toContain("Greeter");
    expect(search.symbols[0]).toMatchObject({ name: "Greeter", workspace: "default" });
    const batch = (await call("batch")).structuredContent as { results: Array<{ ok: boolean; text: string }> };
    expect(batch.results.map((r) => r.ok)).toEqual([true, true]);
    expect(batch.results[1]?.text).toContain("src/greeter.ts:7:14");
    const status = (await call("workspace_status")).structuredContent as {
      workspaces: string[];
      languages: Array<{ language: string; state: string }>;
    };
    expect(status.workspaces).toEqual(["default"]);
    expect(status.languages.map((l) => l.language)).toContain("typescript");
  });
});
