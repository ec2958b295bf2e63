// Which tool calls need nothing of the SDK's dispatch. The shared server's McpServer checks each
// tools/call with zod several times (the JSON-RPC envelope three or four times, the request twice,
// the result once: about a sixth of the gateway's CPU per call, bench/profile.mjs) before and after
// running the tool's handler. A call whose shape those checks accept by construction (below) is
// handed to the handler directly; the handlers are the same ones the McpServer runs, and their
// results are built by typed code. Anything else still goes through the SDK.

/** A `tools/call` the SDK would pass unchanged to the tool's handler. */
export interface PlainToolCall {
  readonly id: string | number;
  readonly name: string;
  /** The arguments as the handler gets them (the SDK passes `{}` for none). */
  readonly arguments: Record<string, unknown>;
  /** `params._meta`: only W3C trace context keys, or undefined. */
  readonly meta: Record<string, string> | undefined;
}

/** `_meta` keys a plain call may carry (trace context); any other key (progressToken, a protocol claim, …) is the SDK's to read. */
const TRACE_META_KEYS: ReadonlySet<string> = new Set(["traceparent", "tracestate", "baggage"]);
const ENVELOPE_KEYS: ReadonlySet<string> = new Set(["jsonrpc", "id", "method", "params"]);
const PARAMS_KEYS: ReadonlySet<string> = new Set(["name", "arguments", "_meta"]);

/** The first 2026-07-28-era protocol version: a header naming it or a later one is a modern request. */
const FIRST_MODERN_PROTOCOL_VERSION = "2026-07-28";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

function traceMeta(meta: unknown): Record<string, string> | undefined | false {
  if (meta === undefined) return undefined;
  if (!isPlainObject(meta) || !onlyKeys(meta, TRACE_META_KEYS)) return false;
  for (const key in meta) if (typeof meta[key] !== "string") return false;
  return meta as Record<string, string>;
}

/**
 * The call when `body` is a single 2025-era JSON-RPC `tools/call` request of the plainest shape:
 * exactly the envelope's keys, `"2.0"`, a string or integer id, params with a string name,
 * object arguments (or none) and no `_meta` beyond trace context — which the SDK's envelope,
 * request and era checks all accept as they are. Undefined for anything else (the SDK decides).
 * `protocolVersion` is the request's MCP-Protocol-Version header, already checked as supported.
 */
export function plainToolCall(body: unknown, protocolVersion: string | undefined): PlainToolCall | undefined {
  if (!isPlainObject(body) || body.jsonrpc !== "2.0" || body.method !== "tools/call") return undefined;
  if (!onlyKeys(body, ENVELOPE_KEYS)) return undefined;
  const id = body.id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id))) return undefined;
  if (protocolVersion !== undefined && protocolVersion.trim() >= FIRST_MODERN_PROTOCOL_VERSION) return undefined;
  const params = body.params;
  if (!isPlainObject(params) || !onlyKeys(params, PARAMS_KEYS) || typeof params.name !== "string") return undefined;
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  const meta = traceMeta(params._meta);
  if (meta === false) return undefined;
  return { id, name: params.name, arguments: args ?? {}, meta };
}
