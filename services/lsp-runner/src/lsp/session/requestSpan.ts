// An OpenTelemetry span around one request to a language server (textDocument/definition…), made
// with the vendor-neutral API only: whoever registered an SDK receives it. A request is traced only
// inside a sampled trace (an active span, here or the caller's); the server's background work
// starts no trace, and without an SDK this costs one lookup of the active span.
import { type Span, SpanKind, SpanStatusCode, TraceFlags, trace } from "@opentelemetry/api";

/** Asked for per span, not kept: a tracer kept from one registered SDK would outlive its close(). */
const tracer = () => trace.getTracer("lspmesh-lsp");

/**
 * True inside a sampled trace: the active span may be a caller's in another process (a remote
 * parent), so its sampled flag decides, not whether it records here. Without an SDK: false.
 */
export function inTracedCall(): boolean {
  const active = trace.getActiveSpan();
  return active !== undefined && (active.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;
}

/** `send()` inside a CLIENT span named after `method`; callers check inTracedCall() first. */
export function inRequestSpan<R>(method: string, language: string, send: () => Promise<R>): Promise<R> {
  return tracer().startActiveSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: { "rpc.system.name": "jsonrpc", "rpc.method": method, "lsp.language": language },
    },
    (span) => endedWith(span, send),
  );
}

async function endedWith<R>(span: Span, send: () => Promise<R>): Promise<R> {
  try {
    return await send();
  } catch (error) {
    // The error's kind only (RunnerError's code, ResponseError's number): messages may quote code.
    const code = (error as { code?: unknown }).code;
    span.setAttribute("error.type", typeof code === "string" || typeof code === "number" ? String(code) : "error");
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
