// W3C trace context across the boundaries lspmesh owns: HTTP headers and MCP `_meta` coming in, a
// child process's call parameters going out and in. While tracing is off every helper only runs
// what it was given: no header is parsed and nothing is allocated.
import { context, propagation } from "@opentelemetry/api";
import { tracingEnabled } from "./tracing.js";

/** The W3C Trace Context headers, as they are carried between processes. */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

/**
 * Runs `run` as the child of the trace context in `carrier` (HTTP headers, an MCP `_meta`,
 * TraceHeaders); plainly when tracing is off or the carrier has no single traceparent string.
 */
export function withTraceParent<T>(carrier: object | undefined, run: () => T): T {
  if (!tracingEnabled() || typeof (carrier as { traceparent?: unknown } | undefined)?.traceparent !== "string")
    return run();
  return context.with(propagation.extract(context.active(), carrier), run);
}

/** The active span as TraceHeaders to hand on; undefined when tracing is off or no span is active. */
export function activeTraceHeaders(): TraceHeaders | undefined {
  if (!tracingEnabled()) return undefined;
  const headers: Partial<TraceHeaders> = {};
  propagation.inject(context.active(), headers);
  return typeof headers.traceparent === "string" ? { ...headers, traceparent: headers.traceparent } : undefined;
}
