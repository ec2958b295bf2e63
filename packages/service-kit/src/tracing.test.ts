import { trace } from "@opentelemetry/api";
import { describe, expect, test } from "vitest";
import type { RelayedSpan } from "./spanRelay.js";
import { activeTraceHeaders, withTraceParent } from "./traceContext.js";
import { startRelayTracing, startTracing, tracingEnabled } from "./tracing.js";

const CALLER = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };
const TRACEPARENT = `00-${CALLER.traceId}-${CALLER.spanId}-01`;

describe("tracing off", () => {
  test("without an endpoint nothing is registered: the helpers only run what they are given", async () => {
    const warnings: string[] = [];
    const tracing = await startTracing({ serviceName: "s", env: {}, warn: (message) => warnings.push(message) });
    expect(tracing.enabled).toBe(false);
    expect(tracingEnabled()).toBe(false);
    expect(warnings).toEqual([]);
    const seen = withTraceParent({ traceparent: TRACEPARENT }, () => trace.getActiveSpan());
    expect(seen).toBeUndefined();
    expect(activeTraceHeaders()).toBeUndefined();
    await tracing.close();
  });

  test("a setting lspmesh cannot honour is told, and tracing stays off", async () => {
    const warnings: string[] = [];
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_TRACES_EXPORTER: "zipkin" };
    const tracing = await startTracing({ serviceName: "s", env, warn: (message) => warnings.push(message) });
    expect(tracing.enabled).toBe(false);
    expect(warnings).toEqual([expect.stringContaining("OTEL_TRACES_EXPORTER=zipkin")]);
  });
});

describe("tracing on (relayed, as a tenant worker runs it)", () => {
  test("spans continue the caller's traceparent, hand it on, and are relayed once ended", async () => {
    const relayed: RelayedSpan[] = [];
    const tracing = await startRelayTracing("lspmesh-runner", (spans) => relayed.push(...spans));
    try {
      expect(tracingEnabled()).toBe(true);
      const handedOn = await withTraceParent({ traceparent: TRACEPARENT }, () =>
        trace.getTracer("test").startActiveSpan("textDocument/hover", async (span) => {
          const headers = activeTraceHeaders();
          span.end();
          return headers;
        }),
      );
      expect(relayed).toEqual([
        expect.objectContaining({ name: "textDocument/hover", traceId: CALLER.traceId, parentSpanId: CALLER.spanId }),
      ]);
      expect(handedOn).toEqual({ traceparent: `00-${CALLER.traceId}-${relayed[0]!.spanId}-01` });
      // A relaying process never starts a trace of its own.
      trace.getTracer("test").startSpan("background").end();
      expect(relayed).toHaveLength(1);
    } finally {
      await tracing.close();
      await tracing.close();
    }
    expect(tracingEnabled()).toBe(false);
    expect(withTraceParent({ traceparent: TRACEPARENT }, () => trace.getActiveSpan())).toBeUndefined();
  });
});
