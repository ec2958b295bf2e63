// OpenTelemetry tracing of one lspmesh process, off by default. Off (no OTLP endpoint set), the SDK
// is never loaded: the API's no-op tracer answers, and tracingEnabled() lets hot paths skip
// tracing code altogether. On, the SDK (tracingSdk.ts, loaded only then) is registered globally:
// W3C trace context, spans batched to OTLP/HTTP. Each process starts it once, in its composition
// root, before it builds anything that traces, and closes it last.

import type { Environment } from "./settings.js";
import type { RelayedSpan } from "./spanRelay.js";
import type { RegisteredSdk } from "./tracingSdk.js";
import { tracingSettings } from "./tracingSettings.js";

/** The tracing of this process; close() flushes what is pending and unregisters the SDK. */
export interface Tracing {
  /** Spans are recorded and exported. */
  readonly enabled: boolean;
  /** Spans a confined child process recorded (spanRelay.ts), exported with this process's own. */
  acceptRelayed(spans: readonly RelayedSpan[]): void;
  /** Exports what is pending (up to its timeout), then shuts the SDK down. Idempotent. */
  close(): Promise<void>;
}

export interface TracingOptions {
  /** service.name unless OTEL_SERVICE_NAME says otherwise, e.g. "lspmesh-gateway". */
  serviceName: string;
  /** Where the OTEL_* variables are read (the process environment in a composition root). */
  env: Environment;
  /** Told why tracing stays off when it was configured wrongly, and of the SDK's own errors. */
  warn?: (message: string) => void;
}

const OFF: Tracing = { enabled: false, acceptRelayed() {}, close: async () => {} };

let active: Tracing | undefined;

/** True while a Tracing started here is on: code on hot paths checks this before any tracing work. */
export function tracingEnabled(): boolean {
  return active !== undefined;
}

/** The tracing started in this process, or the one that does nothing. */
export function currentTracing(): Tracing {
  return active ?? OFF;
}

/** Starts tracing when the environment configures an OTLP endpoint; otherwise returns the no-op one. */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const decision = tracingSettings(options.env, options.serviceName);
  if ("off" in decision) {
    if (decision.off) options.warn?.(decision.off);
    return OFF;
  }
  if (active) throw new Error("tracing was started already in this process");
  const { startSdk } = await import("./tracingSdk.js");
  return register(startSdk({ kind: "otlp", settings: decision.settings, warn: options.warn }));
}

/**
 * Tracing for a confined process that cannot reach the network: every span, once ended, is handed
 * to `relay` (its pipe to the parent), whose acceptRelayed() exports it. The parent's traceparent
 * on each call decides sampling.
 */
export async function startRelayTracing(serviceName: string, relay: (spans: RelayedSpan[]) => void): Promise<Tracing> {
  if (active) throw new Error("tracing was started already in this process");
  const { startSdk } = await import("./tracingSdk.js");
  return register(startSdk({ kind: "relay", serviceName, relay }));
}

function register(started: RegisteredSdk): Tracing {
  let closing: Promise<void> | undefined;
  const tracing: Tracing = {
    enabled: true,
    acceptRelayed: (spans) => started.acceptRelayed(spans),
    close() {
      closing ??= (async () => {
        if (active === tracing) active = undefined;
        await started.close();
      })();
      return closing;
    },
  };
  active = tracing;
  return tracing;
}
