// The supervisor's side of a tenant worker's spans. A worker has no network, so the spans it
// records (its language-server requests, inside a traced call) come over the pipe and are exported
// by the supervisor. A worker may add spans only to the traces of the calls it is serving now:
// anything else it sends (another trace, a malformed span) is dropped.
import { currentTracing, parseRelayedSpan, type RelayedSpan, type TraceHeaders } from "@lspmesh/service-kit";

/** The most spans one notification may carry; more is not a worker of ours. */
const MAX_SPANS_PER_MESSAGE = 256;

const NOTHING_TO_END = () => {};

export class WorkerTraces {
  /** Trace id → the calls under way in it. */
  private readonly open = new Map<string, number>();

  constructor(
    /** Where accepted spans go: the process's tracing (its exporter). */
    private readonly accept: (spans: RelayedSpan[]) => void = (spans) => currentTracing().acceptRelayed(spans),
  ) {}

  /** A call in `trace` starts; the function returned says it ended. Untraced calls cost nothing. */
  begin(trace: TraceHeaders | undefined): () => void {
    const traceId = trace ? traceIdOf(trace.traceparent) : undefined;
    if (!traceId) return NOTHING_TO_END;
    this.open.set(traceId, (this.open.get(traceId) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.open.get(traceId) ?? 1) - 1;
      if (left > 0) this.open.set(traceId, left);
      else this.open.delete(traceId);
    };
  }

  /** The payload of a `worker/spans` notification: its spans of open traces, checked, are exported. */
  receive(payload: unknown): void {
    const spans = (payload as { spans?: unknown } | undefined)?.spans;
    if (!Array.isArray(spans) || spans.length > MAX_SPANS_PER_MESSAGE || this.open.size === 0) return;
    const accepted: RelayedSpan[] = [];
    for (const value of spans) {
      const span = parseRelayedSpan(value);
      if (span && this.open.has(span.traceId)) accepted.push(span);
    }
    if (accepted.length > 0) this.accept(accepted);
  }
}

/** The trace id of a W3C traceparent (version-traceid-spanid-flags), or undefined. */
function traceIdOf(traceparent: string): string | undefined {
  return /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/.exec(traceparent)?.[1];
}
