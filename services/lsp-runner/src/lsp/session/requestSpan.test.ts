import { type RelayedSpan, startRelayTracing, withTraceParent } from "@lspmesh/service-kit";
import { expect, test } from "vitest";
import { inRequestSpan, inTracedCall } from "./requestSpan.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

test("without an SDK or a traced call nothing is traced", async () => {
  expect(inTracedCall()).toBe(false);
  const tracing = await startRelayTracing("lspmesh-runner", () => {});
  try {
    expect(inTracedCall()).toBe(false);
    expect(withTraceParent({ traceparent: `00-${TRACE}-${CALLER_SPAN}-01` }, inTracedCall)).toBe(true);
    expect(withTraceParent({ traceparent: `00-${TRACE}-${CALLER_SPAN}-00` }, inTracedCall)).toBe(false);
  } finally {
    await tracing.close();
  }
});

test("inside a sampled trace (the caller's, in another process) a request is a span named after its method", async () => {
  const ended: RelayedSpan[] = [];
  const tracing = await startRelayTracing("lspmesh-runner", (spans) => ended.push(...spans));
  try {
    const traceparent = `00-${TRACE}-${CALLER_SPAN}-01`;
    await withTraceParent({ traceparent }, () => inRequestSpan("textDocument/definition", "typescript", async () => 1));
    const failing = () =>
      inRequestSpan("textDocument/hover", "typescript", async () => {
        throw Object.assign(new Error("the server said /secret/path"), { code: -32603 });
      });
    await expect(withTraceParent({ traceparent }, failing)).rejects.toThrow();
  } finally {
    await tracing.close();
  }
  expect(ended).toEqual([
    expect.objectContaining({
      name: "textDocument/definition",
      traceId: TRACE,
      parentSpanId: CALLER_SPAN,
      attributes: {
        "rpc.system.name": "jsonrpc",
        "rpc.method": "textDocument/definition",
        "lsp.language": "typescript",
      },
      status: { code: 0 },
    }),
    expect.objectContaining({ name: "textDocument/hover", status: { code: 2 } }),
  ]);
  expect(ended[1]?.attributes["error.type"]).toBe("-32603");
  expect(JSON.stringify(ended)).not.toContain("secret");
});
