// What the standard OpenTelemetry environment variables say about this process's traces. Tracing
// is on only when an OTLP endpoint is given (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
// OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/traces"); unset, no SDK is loaded at all. Spans go out as
// OTLP/HTTP with protobuf bodies, the protocol every collector accepts on port 4318.
import type { Environment } from "./settings.js";
import { nonEmpty } from "./settings.js";

/** How a new trace is sampled (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG). */
export interface SamplerSettings {
  /** The caller's sampled flag decides when it sent a traceparent (the parentbased_* samplers). */
  parentBased: boolean;
  /** Share of root traces recorded, 0..1 (always_on 1, always_off 0, traceidratio its argument). */
  ratio: number;
}

export interface TracingSettings {
  /** service.name of every span (OTEL_SERVICE_NAME, else the process's own name). */
  serviceName: string;
  /** Where spans are POSTed, e.g. http://collector:4318/v1/traces. */
  tracesUrl: string;
  /** Pause between two batch exports, ms (OTEL_BSP_SCHEDULE_DELAY, default 5 000). */
  scheduleDelayMs: number;
  sampler: SamplerSettings;
}

/** Tracing on (`settings`), or off with the reason an operator should read when it was configured wrongly. */
export type TracingDecision = { settings: TracingSettings } | { off: string | undefined };

const DEFAULT_SCHEDULE_DELAY_MS = 5_000;
const SUPPORTED_PROTOCOL = "http/protobuf";

/** Reads the OTEL_* variables; `serviceName` is the default when OTEL_SERVICE_NAME is unset. */
export function tracingSettings(env: Environment, serviceName: string): TracingDecision {
  const tracesUrl = tracesEndpoint(env);
  if (tracesUrl === undefined) return { off: undefined };
  if (nonEmpty(env.OTEL_SDK_DISABLED)?.toLowerCase() === "true") return { off: undefined };
  const exporters = (nonEmpty(env.OTEL_TRACES_EXPORTER) ?? "otlp").toLowerCase();
  if (exporters === "none") return { off: undefined };
  if (!exporters.split(",").some((name) => name.trim() === "otlp")) {
    return { off: `OTEL_TRACES_EXPORTER=${exporters} is not supported (otlp or none): traces are not exported` };
  }
  const protocol = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL);
  if (protocol !== undefined && protocol !== SUPPORTED_PROTOCOL) {
    return { off: `OTLP protocol ${protocol} is not supported (${SUPPORTED_PROTOCOL}): traces are not exported` };
  }
  if (!isHttpUrl(tracesUrl)) {
    return { off: `the OTLP endpoint '${tracesUrl}' is not an http(s) URL: traces are not exported` };
  }
  const sampler = samplerSettings(env);
  if (typeof sampler === "string") return { off: sampler };
  return {
    settings: {
      serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? serviceName,
      tracesUrl,
      scheduleDelayMs: wholeMs(env.OTEL_BSP_SCHEDULE_DELAY) ?? DEFAULT_SCHEDULE_DELAY_MS,
      sampler,
    },
  };
}

/** The signal's own endpoint as given, or the general one with the traces path appended. */
function tracesEndpoint(env: Environment): string | undefined {
  const traces = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (traces !== undefined) return traces;
  const general = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  return general === undefined ? undefined : `${general.replace(/\/+$/, "")}/v1/traces`;
}

/** The sampler, or what is wrong with its variables. */
function samplerSettings(env: Environment): SamplerSettings | string {
  const name = (nonEmpty(env.OTEL_TRACES_SAMPLER) ?? "parentbased_always_on").toLowerCase();
  const parentBased = name.startsWith("parentbased_");
  const kind = parentBased ? name.slice("parentbased_".length) : name;
  if (kind === "always_on") return { parentBased, ratio: 1 };
  if (kind === "always_off") return { parentBased, ratio: 0 };
  if (kind !== "traceidratio") return `OTEL_TRACES_SAMPLER=${name} is not supported: traces are not exported`;
  const arg = nonEmpty(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = arg === undefined ? 1 : Number(arg);
  if (!(ratio >= 0 && ratio <= 1)) return `OTEL_TRACES_SAMPLER_ARG '${arg}' is not a ratio from 0 to 1`;
  return { parentBased, ratio };
}

function isHttpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}

function wholeMs(raw: string | undefined): number | undefined {
  const text = nonEmpty(raw);
  return text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}
