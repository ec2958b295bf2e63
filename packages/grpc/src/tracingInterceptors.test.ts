import { Metadata, status } from "@grpc/grpc-js";
import { Runner } from "@lspmesh/proto";
import { type RelayedSpan, startRelayTracing, type Tracing, withTraceParent } from "@lspmesh/service-kit";
import { context, ROOT_CONTEXT, type SpanContext, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { GrpcStatusError } from "./grpcAdapter.js";
import { applyInterceptors, type UnaryCall, type UnaryNext } from "./interceptors.js";
import {
  clientTracingInterceptor,
  metadataGetter,
  metadataSetter,
  serverTracingInterceptor,
} from "./tracingInterceptors.js";

/** The caller's span, as an MCP client's traceparent names it (sampled). */
const CALLER = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };
const TRACEPARENT = `00-${CALLER.traceId}-${CALLER.spanId}-01`;
const SPAN_KIND = { server: 1, client: 2 };

// An SDK that hands every ended span to this test (no exporter, no network).
const ended: RelayedSpan[] = [];
let tracing: Tracing;
beforeAll(async () => {
  tracing = await startRelayTracing("grpc-test", (spans) => ended.push(...spans));
});
afterAll(() => tracing.close());
beforeEach(() => {
  ended.length = 0;
});

function callOf(): UnaryCall {
  return {
    method: Runner.method.findDefinition,
    request: {},
    context: { metadata: new Metadata(), signal: new AbortController().signal, deadlineMs: Number.POSITIVE_INFINITY },
  };
}

/** Client and server chains joined as the network joins them: only the metadata crosses. */
function overTheWire(handler: UnaryNext): UnaryNext {
  const server = applyInterceptors([serverTracingInterceptor()], handler);
  return applyInterceptors([clientTracingInterceptor({ address: "127.0.0.1:7000" })], (call) =>
    context.with(ROOT_CONTEXT, () =>
      server({ ...call, context: { ...call.context, metadata: call.context.metadata.clone() } }),
    ),
  );
}

describe("trace context over gRPC metadata", () => {
  test("the client span is the caller's child and goes out as traceparent; the server span continues it", async () => {
    let handlerSaw: SpanContext | undefined;
    const call = callOf();
    await withTraceParent({ traceparent: TRACEPARENT }, () =>
      overTheWire(async () => {
        handlerSaw = trace.getActiveSpan()?.spanContext();
        return "answer";
      })(call),
    );
    const client = ended.find((span) => span.kind === SPAN_KIND.client)!;
    const server = ended.find((span) => span.kind === SPAN_KIND.server)!;
    expect(call.context.metadata.get("traceparent")).toEqual([`00-${CALLER.traceId}-${client.spanId}-01`]);
    expect([client.traceId, server.traceId, handlerSaw?.traceId]).toEqual(Array(3).fill(CALLER.traceId));
    expect(client.parentSpanId).toBe(CALLER.spanId);
    expect(server.parentSpanId).toBe(client.spanId);
    expect(handlerSaw?.spanId).toBe(server.spanId);
    expect(client).toMatchObject({
      name: "lspmesh.v1.Runner/FindDefinition",
      attributes: {
        "rpc.system.name": "grpc",
        "rpc.method": "lspmesh.v1.Runner/FindDefinition",
        "rpc.status_code": "OK",
        "server.address": "127.0.0.1",
        "server.port": 7000,
      },
    });
  });

  test("a failure is told by its status name on both spans, never by its message", async () => {
    const failing = overTheWire(async () => {
      throw new GrpcStatusError(status.NOT_FOUND, "no such file /home/someone/secret.ts");
    });
    await expect(withTraceParent({ traceparent: TRACEPARENT }, () => failing(callOf()))).rejects.toThrow(
      GrpcStatusError,
    );
    expect(ended).toHaveLength(2);
    for (const span of ended) {
      expect(span.status).toEqual({ code: 2 });
      expect(span.attributes).toMatchObject({ "rpc.status_code": "NOT_FOUND", "error.type": "NOT_FOUND" });
      expect(JSON.stringify(span)).not.toContain("secret");
    }
  });

  test("metadata carries the headers as text: binary and missing values read as absent", () => {
    const metadata = new Metadata();
    metadataSetter.set(metadata, "traceparent", TRACEPARENT);
    metadata.set("tracestate-bin", Buffer.from("x"));
    expect(metadataGetter.get(metadata, "traceparent")).toBe(TRACEPARENT);
    expect(metadataGetter.get(metadata, "tracestate-bin")).toBeUndefined();
    expect(metadataGetter.get(metadata, "tracestate")).toBeUndefined();
    expect(metadataGetter.keys(metadata)).toEqual(["traceparent", "tracestate-bin"]);
  });
});
