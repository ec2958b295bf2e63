// Plain tool calls: which calls skip the SDK's dispatch, and that the answer given without it is the
// one the SDK's McpServer gives for the same handler.
import {
  type AuthInfo,
  type CallToolResult,
  classifyInboundRequest,
  isJSONRPCRequest,
  type JSONRPCRequest,
  McpServer,
} from "@modelcontextprotocol/server";
import { describe, expect, test } from "vitest";
import type { ToolHandler } from "../defineTool.js";
import { MultiplexedTransport } from "../multiplexedTransport.js";
import { plainToolCall } from "./plainToolCall.js";
import { callDirectly } from "./sharedServerPath.js";

const call = (params: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params,
  ...extra,
});

describe("plainToolCall", () => {
  test("takes the shape agents send: name, arguments, optional trace context", () => {
    expect(plainToolCall(call({ name: "hover", arguments: { file: "a.ts" } }), "2025-06-18")).toEqual({
      id: 7,
      name: "hover",
      arguments: { file: "a.ts" },
      meta: undefined,
    });
    expect(plainToolCall(call({ name: "hover" }), undefined)?.arguments).toEqual({});
    const traced = plainToolCall(call({ name: "hover", _meta: { traceparent: "00-a-b-01" } }), undefined);
    expect(traced?.meta).toEqual({ traceparent: "00-a-b-01" });
    expect(plainToolCall({ ...call({ name: "x" }), id: "abc" }, undefined)?.id).toBe("abc");
  });

  test("leaves everything else to the SDK", () => {
    const refused: Array<[unknown, string | undefined]> = [
      [call({ name: "hover", _meta: { progressToken: 1 } }), undefined],
      [call({ name: "hover", _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }), undefined],
      [call({ name: "hover", _meta: { traceparent: 5 } }), undefined],
      [call({ name: "hover", task: { ttl: 1 } }), undefined],
      [call({ name: "hover", arguments: [1] }), undefined],
      [call({ name: "hover", arguments: null }), undefined],
      [call({ name: 3 }), undefined],
      [call([]), undefined],
      [call({ name: "hover" }, { extra: true }), undefined],
      [{ ...call({ name: "hover" }), id: 1.5 }, undefined],
      [{ ...call({ name: "hover" }), id: null }, undefined],
      [{ ...call({ name: "hover" }), jsonrpc: "1.0" }, undefined],
      [{ ...call({ name: "hover" }), method: "tools/list" }, undefined],
      [call({ name: "hover" }), "2026-07-28"],
      [call({ name: "hover" }), " 2027-01-01 "],
      [[call({ name: "hover" })], undefined],
    ];
    for (const [body, version] of refused) expect(plainToolCall(body, version), JSON.stringify(body)).toBeUndefined();
  });

  test("whatever it takes, the SDK takes as a legacy-era JSON-RPC request", () => {
    const taken = [
      call({ name: "hover", arguments: { file: "a.ts", line: 1 } }),
      call({ name: "hover", _meta: { traceparent: "t", tracestate: "s", baggage: "b" } }),
      { ...call({ name: "find_definition" }), id: "request-1" },
    ];
    for (const body of taken) {
      for (const version of [undefined, "2025-06-18", "2025-11-25"]) {
        expect(plainToolCall(body, version)).toBeDefined();
        expect(isJSONRPCRequest(body)).toBe(true);
        const route = classifyInboundRequest({ httpMethod: "POST", protocolVersionHeader: version, body });
        expect(route.kind).toBe("legacy");
      }
    }
  });
});

describe("callDirectly", () => {
  const authInfo: AuthInfo = { token: "", clientId: "caller-1", scopes: [] };

  /** The same handler registered on an McpServer behind a MultiplexedTransport: the SDK's answer. */
  async function sdkAnswer(name: string, handler: ToolHandler, request: JSONRPCRequest) {
    const server = new McpServer({ name: "test", version: "1.0.0" });
    server.registerTool(
      name,
      {
        inputSchema: {
          "~standard": { version: 1, vendor: "t", validate: (value: unknown) => ({ value: value ?? {} }) },
        } as never,
        outputSchema: {
          "~standard": { version: 1, vendor: "t", validate: (value: unknown) => ({ value }) },
        } as never,
      },
      handler as never,
    );
    const transport = new MultiplexedTransport();
    await server.connect(transport);
    try {
      return await transport.request(request, authInfo);
    } finally {
      await server.close();
    }
  }

  const cases: Array<[string, ToolHandler]> = [
    [
      "an answer",
      async (args, ctx) => ({
        content: [{ type: "text", text: `${JSON.stringify(args)} for ${ctx.http?.authInfo?.clientId}` }],
        structuredContent: { ok: true, signalled: ctx.mcpReq.signal.aborted },
      }),
    ],
    ["a tool error", async () => ({ content: [{ type: "text", text: "NOT_FOUND: no" }], isError: true })],
    ["no structured content", async () => ({ content: [{ type: "text", text: "plain" }] }) as CallToolResult],
    [
      "a throw",
      async () => {
        throw new Error("broken");
      },
    ],
  ];
  for (const [what, handler] of cases) {
    test(`answers ${what} as the SDK's McpServer does`, async () => {
      const body = call({ name: "probe", arguments: { file: "a.ts" } }) as JSONRPCRequest;
      const plain = plainToolCall(body, undefined);
      if (!plain) throw new Error("not plain");
      const direct = await callDirectly(plain, handler, authInfo, new AbortController().signal);
      expect(direct).toEqual(await sdkAnswer("probe", handler, body));
    });
  }
});
