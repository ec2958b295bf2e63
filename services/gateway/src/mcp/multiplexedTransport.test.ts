// One long-lived McpServer (the SDK's) behind a MultiplexedTransport: callers' ids may collide,
// each caller gets its own answer under its own id, with its own authInfo, and cancellation
// reaches the handler.
import { type AuthInfo, type JSONRPCRequest, McpServer } from "@modelcontextprotocol/server";
import { afterEach, expect, test } from "vitest";
import { z } from "zod";
import { MultiplexedTransport } from "./multiplexedTransport.js";

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** A server whose `whoami` answers the caller's clientId after `delay_ms`, and whose `wait` ends only when aborted. */
async function connectedServer() {
  const server = new McpServer({ name: "test", version: "1.0.0" });
  const aborted: string[] = [];
  /** Names of the `wait` calls whose handler runs. */
  const waiting: string[] = [];
  server.registerTool("whoami", { inputSchema: z.object({ delay_ms: z.number() }) }, async ({ delay_ms }, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, delay_ms));
    return { content: [{ type: "text", text: ctx.http?.authInfo?.clientId ?? "nobody" }] };
  });
  server.registerTool("wait", { inputSchema: z.object({ name: z.string() }) }, ({ name }, ctx) => {
    waiting.push(name);
    return new Promise((_resolve, reject) => {
      ctx.mcpReq.signal.addEventListener("abort", () => {
        aborted.push(name);
        reject(new Error("aborted"));
      });
    });
  });
  const transport = new MultiplexedTransport();
  await server.connect(transport);
  closing.push(() => server.close());
  return { transport, aborted, waiting };
}

const caller = (clientId: string): AuthInfo => ({ token: "", clientId, scopes: [] });
const call = (id: number | string, name: string, args: Record<string, unknown>): JSONRPCRequest => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

test("callers with the same request id each get their own answer, under their own id", async () => {
  const { transport } = await connectedServer();
  // The slower one is asked first: answers must not be matched by order or by the callers' ids.
  const [alice, bob, carol] = await Promise.all([
    transport.request(call(1, "whoami", { delay_ms: 30 }), caller("alice")),
    transport.request(call(1, "whoami", { delay_ms: 0 }), caller("bob")),
    transport.request(call("x-7", "whoami", { delay_ms: 10 }), caller("carol")),
  ]);
  expect(alice).toMatchObject({ id: 1, result: { content: [{ text: "alice" }] } });
  expect(bob).toMatchObject({ id: 1, result: { content: [{ text: "bob" }] } });
  expect(carol).toMatchObject({ id: "x-7", result: { content: [{ text: "carol" }] } });
  expect(transport.inFlight).toBe(0);
});

test("an unknown tool is the server's JSON-RPC error, under the caller's id", async () => {
  const { transport } = await connectedServer();
  const answer = await transport.request(call(42, "no_such_tool", {}), caller("alice"));
  expect(answer).toMatchObject({ id: 42, error: { message: expect.stringContaining("no_such_tool") } });
});

test("an aborted request resolves with no answer and aborts its handler only", async () => {
  const { transport, aborted, waiting } = await connectedServer();
  const gone = new AbortController();
  const first = transport.request(call(1, "wait", { name: "first" }), caller("alice"), gone.signal);
  const second = transport.request(call(1, "wait", { name: "second" }), caller("bob"));
  // Aborted once both handlers run (an abort before that reaches no handler).
  await expect.poll(() => waiting.length).toBe(2);
  gone.abort();
  await expect(first).resolves.toBeUndefined();
  await expect.poll(() => aborted).toEqual(["first"]);
  expect(transport.inFlight).toBe(1);
  await transport.close();
  await expect(second).resolves.toBeUndefined();
  await expect(transport.request(call(2, "whoami", { delay_ms: 0 }), caller("bob"))).rejects.toThrow("closed");
});
