// Spans of a confined child process (a runner's tenant worker: no network, no credentials) carried
// to its parent as JSON, which exports them with its own. Only what a span of ours holds crosses:
// ids, name, kind, times, primitive attributes, status. The parent trusts the child less than
// itself, so everything it receives is checked and bounded before it reaches the exporter.
import type { ReadableSpan } from "@opentelemetry/sdk-trace";

/** One ended span as it crosses the pipe. Times are OpenTelemetry HrTime: [seconds, nanoseconds]. */
export interface RelayedSpan {
  name: string;
  /** SpanKind: 0 internal, 1 server, 2 client, 3 producer, 4 consumer. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  traceFlags: number;
  start: [number, number];
  end: [number, number];
  attributes: Record<string, string | number | boolean>;
  /** SpanStatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  /** The tracer's name (instrumentation scope). */
  scope: string;
}

/** Bounds on what a child may relay: lengths in characters, counts of attributes. */
const MAX_NAME = 200;
const MAX_ATTRIBUTES = 32;
const MAX_KEY = 100;
const MAX_STRING = 1_000;

export function toRelayedSpan(span: ReadableSpan): RelayedSpan {
  const context = span.spanContext();
  const attributes: RelayedSpan["attributes"] = {};
  for (const [key, value] of Object.entries(span.attributes)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") attributes[key] = value;
  }
  const parentSpanId = span.parentSpanContext?.spanId;
  return {
    name: span.name,
    kind: span.kind,
    traceId: context.traceId,
    spanId: context.spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    traceFlags: context.traceFlags,
    start: [span.startTime[0], span.startTime[1]],
    end: [span.endTime[0], span.endTime[1]],
    attributes,
    status: { code: span.status.code, ...(span.status.message ? { message: span.status.message } : {}) },
    scope: span.instrumentationScope.name,
  };
}

/** `value` as a RelayedSpan when it is a well-formed one within the bounds; undefined otherwise. */
export function parseRelayedSpan(value: unknown): RelayedSpan | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const span = value as Record<string, unknown>;
  const { name, kind, traceId, spanId, parentSpanId, traceFlags, start, end, status, scope } = span;
  if (!isText(name, MAX_NAME) || !isText(scope, MAX_NAME)) return undefined;
  if (!isInteger(kind, 0, 4) || !isInteger(traceFlags, 0, 255)) return undefined;
  if (!isHex(traceId, 32) || !isHex(spanId, 16)) return undefined;
  if (parentSpanId !== undefined && !isHex(parentSpanId, 16)) return undefined;
  if (!isHrTime(start) || !isHrTime(end)) return undefined;
  const checkedStatus = statusOf(status);
  const attributes = attributesOf(span.attributes);
  if (!checkedStatus || !attributes) return undefined;
  return {
    name,
    kind,
    traceId,
    spanId,
    ...(parentSpanId !== undefined ? { parentSpanId } : {}),
    traceFlags,
    start,
    end,
    attributes,
    status: checkedStatus,
    scope,
  };
}

function statusOf(value: unknown): RelayedSpan["status"] | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { code, message } = value as { code?: unknown; message?: unknown };
  if (!isInteger(code, 0, 2)) return undefined;
  if (message !== undefined && !isText(message, MAX_STRING)) return undefined;
  return message === undefined ? { code } : { code, message };
}

function attributesOf(value: unknown): RelayedSpan["attributes"] | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value);
  if (entries.length > MAX_ATTRIBUTES) return undefined;
  const attributes: RelayedSpan["attributes"] = {};
  for (const [key, item] of entries) {
    if (key.length === 0 || key.length > MAX_KEY) return undefined;
    const ok =
      typeof item === "boolean" || (typeof item === "number" && Number.isFinite(item)) || isText(item, MAX_STRING);
    if (!ok) return undefined;
    attributes[key] = item as string | number | boolean;
  }
  return attributes;
}

function isText(value: unknown, max: number): value is string {
  return typeof value === "string" && value.length <= max;
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
}

function isHex(value: unknown, length: number): value is string {
  return typeof value === "string" && value.length === length && /^[0-9a-f]+$/.test(value) && !/^0+$/.test(value);
}

function isHrTime(value: unknown): value is [number, number] {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    isInteger(value[0], 0, Number.MAX_SAFE_INTEGER) &&
    isInteger(value[1], 0, 999_999_999)
  );
}
