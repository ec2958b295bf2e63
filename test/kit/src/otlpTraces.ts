// Decoding what an OTLP/HTTP trace exporter POSTs (an ExportTraceServiceRequest in protobuf) into
// plain spans a test can check, reading only the fields lspmesh's spans use. Field numbers are
// those of opentelemetry/proto/trace/v1/trace.proto and common/v1/common.proto.
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

export interface ReceivedSpan {
  /** service.name of the process that exported it. */
  service: string;
  /** The tracer's name (instrumentation scope). */
  scope: string;
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

/** Every span of one export request. */
export function decodeTraceRequest(body: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  // ExportTraceServiceRequest.resource_spans = 1
  for (const resourceSpans of messages(body, 1)) {
    let service = "";
    // ResourceSpans.resource = 1 (Resource.attributes = 1), scope_spans = 2
    for (const resource of messages(resourceSpans, 1))
      service = String(attributesOf(resource, 1)["service.name"] ?? "");
    for (const scopeSpans of messages(resourceSpans, 2)) {
      // ScopeSpans.scope = 1 (InstrumentationScope.name = 1), spans = 2
      let scope = "";
      for (const instrumentation of messages(scopeSpans, 1)) scope = firstString(instrumentation, 1) ?? "";
      for (const span of messages(scopeSpans, 2)) spans.push({ service, scope, ...spanOf(span) });
    }
  }
  return spans;
}

function spanOf(bytes: Uint8Array): Omit<ReceivedSpan, "service" | "scope"> {
  const span: Omit<ReceivedSpan, "service" | "scope"> = {
    traceId: "",
    spanId: "",
    name: "",
    kind: 0,
    startNs: 0n,
    endNs: 0n,
    attributes: attributesOf(bytes, 9),
    statusCode: 0,
  };
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) span.traceId = hex(reader.bytes());
    else if (field === 2) span.spanId = hex(reader.bytes());
    else if (field === 4) {
      const parent = hex(reader.bytes());
      if (parent) span.parentSpanId = parent;
    } else if (field === 5) span.name = reader.string();
    else if (field === 6) span.kind = reader.int32();
    else if (field === 7) span.startNs = BigInt(reader.fixed64());
    else if (field === 8) span.endNs = BigInt(reader.fixed64());
    // Status.code = 3
    else if (field === 15) span.statusCode = firstVarint(reader.bytes(), 3) ?? 0;
    else reader.skip(wireType, field);
  }
  return span;
}

/** KeyValue list in `field` (key = 1, AnyValue = 2: string 1, bool 2, int 3, double 4). */
function attributesOf(bytes: Uint8Array, field: number): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const keyValue of messages(bytes, field)) {
    const key = firstString(keyValue, 1);
    const [value] = messages(keyValue, 2);
    if (key === undefined || value === undefined) continue;
    const reader = new BinaryReader(value);
    while (reader.pos < reader.len) {
      const [kind, wireType] = reader.tag();
      if (kind === 1) attributes[key] = reader.string();
      else if (kind === 2) attributes[key] = reader.bool();
      else if (kind === 3) attributes[key] = Number(reader.int64());
      else if (kind === 4) attributes[key] = reader.double();
      else reader.skip(wireType, kind);
    }
  }
  return attributes;
}

/** The embedded messages (length-delimited values) of one field, in order. */
function messages(bytes: Uint8Array, field: number): Uint8Array[] {
  const found: Uint8Array[] = [];
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [number, wireType] = reader.tag();
    if (number === field && wireType === WireType.LengthDelimited) found.push(reader.bytes());
    else reader.skip(wireType, number);
  }
  return found;
}

function firstString(bytes: Uint8Array, field: number): string | undefined {
  const [value] = messages(bytes, field);
  return value === undefined ? undefined : new TextDecoder().decode(value);
}

function firstVarint(bytes: Uint8Array, field: number): number | undefined {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [number, wireType] = reader.tag();
    if (number === field && wireType === WireType.Varint) return reader.int32();
    reader.skip(wireType, number);
  }
  return undefined;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

/**
 * One trace as an indented tree, each span with its duration in ms and service, children in start
 * order; spans whose parent is not in the list are roots.
 */
export function traceTree(spans: readonly ReceivedSpan[]): string {
  const ids = new Set(spans.map((span) => span.spanId));
  const byStart = [...spans].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  const lines: string[] = [];
  const visit = (span: ReceivedSpan, depth: number) => {
    const ms = Number(span.endNs - span.startNs) / 1e6;
    lines.push(`${"  ".repeat(depth)}${span.name}  ${ms.toFixed(2)} ms  [${span.service}]`);
    for (const child of byStart.filter((candidate) => candidate.parentSpanId === span.spanId)) visit(child, depth + 1);
  };
  for (const root of byStart.filter((span) => !span.parentSpanId || !ids.has(span.parentSpanId))) visit(root, 0);
  return lines.join("\n");
}
