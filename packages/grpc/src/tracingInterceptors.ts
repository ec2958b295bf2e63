// OpenTelemetry spans around gRPC calls, and the W3C trace context carried in their metadata: the
// client's span is injected as `traceparent` (and `tracestate`), the server's span continues it.
// Only added to a chain while tracing is on (callers check tracingEnabled() when they build it),
// so a process without tracing runs none of this.

import { type Metadata, status } from "@grpc/grpc-js";
import {
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  trace,
} from "@opentelemetry/api";
import type { Interceptor, UnaryCall, UnaryNext } from "./interceptors.js";

/** Asked for per span, not kept: a tracer kept from one registered SDK would outlive its close(). */
const tracer = () => trace.getTracer("lspmesh-grpc");

/** Reads trace context from received metadata (its first text value per key). */
export const metadataGetter: TextMapGetter<Metadata> = {
  get(carrier, key) {
    const [value] = carrier.get(key);
    return typeof value === "string" ? value : undefined;
  },
  keys: (carrier) => Object.keys(carrier.getMap()),
};

/** Writes trace context into the metadata a call sends. */
export const metadataSetter: TextMapSetter<Metadata> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

export interface ClientTracingOptions {
  /** host:port called (server.address / server.port of the span). */
  address?: string;
}

/** Client side: a CLIENT span per call, its context sent in the call's metadata. */
export function clientTracingInterceptor(options: ClientTracingOptions = {}): Interceptor {
  const peer = options.address ? serverAttributes(options.address) : {};
  return (next) => (call) =>
    tracer().startActiveSpan(
      spanName(call),
      { kind: SpanKind.CLIENT, attributes: { ...rpcAttributes(call), ...peer } },
      (span) => {
        propagation.inject(context.active(), call.context.metadata, metadataSetter);
        return ended(span, next, call);
      },
    );
}

/** Server side: a SERVER span per call, the child of the context the caller sent (if any). */
export function serverTracingInterceptor(): Interceptor {
  return (next) => (call) => {
    const parent: Context = propagation.extract(context.active(), call.context.metadata, metadataGetter);
    return tracer().startActiveSpan(
      spanName(call),
      { kind: SpanKind.SERVER, attributes: rpcAttributes(call) },
      parent,
      (span) => ended(span, next, call),
    );
  };
}

/** lspmesh.v1.Runner/FindDefinition, as gRPC names the method on the wire. */
function spanName(call: UnaryCall): string {
  return `${call.method.parent.typeName}/${call.method.name}`;
}

function rpcAttributes(call: UnaryCall): Record<string, string> {
  return { "rpc.system.name": "grpc", "rpc.method": spanName(call) };
}

function serverAttributes(address: string): Record<string, string | number> {
  const colon = address.lastIndexOf(":");
  const port = Number(address.slice(colon + 1));
  return colon > 0 && Number.isInteger(port)
    ? { "server.address": address.slice(0, colon).replace(/^\[|\]$/g, ""), "server.port": port }
    : { "server.address": address };
}

/** Runs the rest of the chain; the span ends with the call, with its gRPC status code. */
async function ended(span: Span, next: UnaryNext, call: UnaryCall): Promise<unknown> {
  try {
    const answer = await next(call);
    span.setAttribute("rpc.status_code", "OK");
    return answer;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const name = typeof code === "number" ? statusName(code) : "INTERNAL";
    // The status name only: a message may carry paths or a server's words.
    span.setAttributes({ "rpc.status_code": name, "error.type": name });
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/** "NOT_FOUND" for 5: grpc-js's status enum read backwards. */
function statusName(code: number): string {
  return status[code] ?? String(code);
}
