// The OpenTelemetry SDK as lspmesh registers it, loaded only when tracing is on (tracing.ts):
// W3C traceparent/tracestate propagation, async-local context, and ended spans either batched to
// an OTLP/HTTP (protobuf) endpoint or, in a confined child process, relayed to its parent.
import { context, DiagLogLevel, diag, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { ExportResultCode, W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import {
  defaultResource,
  detectResources,
  type Resource,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
} from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { parseRelayedSpan, type RelayedSpan, toRelayedSpan } from "./spanRelay.js";
import type { SamplerSettings, TracingSettings } from "./tracingSettings.js";

/** How long close() waits for the last export before giving up on it, ms. */
const CLOSE_TIMEOUT_MS = 5_000;

export type SdkTarget =
  | { kind: "otlp"; settings: TracingSettings; warn?: ((message: string) => void) | undefined }
  | { kind: "relay"; serviceName: string; relay: (spans: RelayedSpan[]) => void };

/** The SDK registered: what tracing.ts builds its Tracing on. */
export interface RegisteredSdk {
  /** Relayed spans, checked, exported with this process's own. */
  acceptRelayed(spans: readonly RelayedSpan[]): void;
  /** Flushes (up to CLOSE_TIMEOUT_MS), shuts down and unregisters the SDK. Once. */
  close(): Promise<void>;
}

/** Registers the SDK globally; close() unregisters it. */
export function startSdk(target: SdkTarget): RegisteredSdk {
  const serviceName = target.kind === "otlp" ? target.settings.serviceName : target.serviceName;
  // OTEL_RESOURCE_ATTRIBUTES adds to the resource; the service name is ours (or OTEL_SERVICE_NAME's).
  const resource = defaultResource()
    .merge(detectResources({ detectors: [resourceAttributesEnvDetector] }))
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }));
  const processor =
    target.kind === "otlp"
      ? new BatchSpanProcessor({
          exporter: new OTLPTraceExporter({ url: target.settings.tracesUrl }),
          scheduledDelayMillis: target.settings.scheduleDelayMs,
        })
      : // One notification per span, written before the call's answer on the same pipe.
        new SimpleSpanProcessor({ exporter: relayExporter(target.relay) });
  // A relaying child never starts a trace of its own: its spans belong to the parent's calls.
  const sampler =
    target.kind === "otlp"
      ? samplerOf(target.settings.sampler)
      : new ParentBasedSampler({ root: new AlwaysOffSampler() });
  const provider = new TracerProvider({ resource, sampler, spanProcessors: [processor] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  if (target.kind === "otlp" && target.warn) {
    const warn = target.warn;
    // Only the SDK's errors (an export that failed), never its chatter.
    const report = (message: string) => warn(`tracing: ${message}`);
    diag.setLogger(
      { error: report, warn: () => {}, info: () => {}, debug: () => {}, verbose: () => {} },
      DiagLogLevel.ERROR,
    );
  }
  return {
    acceptRelayed: (spans) => acceptRelayed(processor, resource, spans),
    close: () => closeSdk(provider, contextManager),
  };
}

async function closeSdk(provider: TracerProvider, contextManager: AsyncLocalStorageContextManager): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    provider.shutdown().catch(() => {}),
    new Promise((resolve) => {
      timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  trace.disable();
  propagation.disable();
  context.disable();
  contextManager.disable();
  diag.disable();
}

function samplerOf(settings: SamplerSettings): Sampler {
  const root =
    settings.ratio >= 1
      ? new AlwaysOnSampler()
      : settings.ratio <= 0
        ? new AlwaysOffSampler()
        : new TraceIdRatioBasedSampler(settings.ratio);
  return settings.parentBased ? new ParentBasedSampler({ root }) : root;
}

function relayExporter(relay: (spans: RelayedSpan[]) => void): SpanExporter {
  return {
    export(spans, done) {
      try {
        relay(spans.map(toRelayedSpan));
        done({ code: ExportResultCode.SUCCESS });
      } catch (error) {
        done({ code: ExportResultCode.FAILED, error: error as Error });
      }
    },
    shutdown: async () => {},
  };
}

/** Relayed spans, checked, handed to the exporter as if ended here (with this process's resource). */
function acceptRelayed(processor: SpanProcessor, resource: Resource, spans: readonly RelayedSpan[]): void {
  for (const value of spans) {
    const relayed = parseRelayedSpan(value);
    if (relayed) processor.onEnd(readableSpanOf(relayed, resource));
  }
}

function readableSpanOf(relayed: RelayedSpan, resource: Resource): ReadableSpan {
  const spanContext = { traceId: relayed.traceId, spanId: relayed.spanId, traceFlags: relayed.traceFlags };
  // Seconds and nanoseconds apart: seconds since 1970 in ns lose precision as one float.
  let seconds = relayed.end[0] - relayed.start[0];
  let nanos = relayed.end[1] - relayed.start[1];
  if (nanos < 0) [seconds, nanos] = [seconds - 1, nanos + 1e9];
  return {
    name: relayed.name,
    kind: relayed.kind,
    spanContext: () => spanContext,
    ...(relayed.parentSpanId
      ? {
          // The parent ended in the process that relayed the call to the child.
          parentSpanContext: {
            traceId: relayed.traceId,
            spanId: relayed.parentSpanId,
            traceFlags: relayed.traceFlags,
            isRemote: true,
          },
        }
      : {}),
    startTime: relayed.start,
    endTime: relayed.end,
    duration: seconds < 0 ? [0, 0] : [seconds, nanos],
    status: relayed.status,
    attributes: relayed.attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: { name: relayed.scope },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
