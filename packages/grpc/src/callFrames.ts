// The frames of a stream of calls (lspmesh.v1.RunnerCalls): many unary calls of a service carried
// on one bidirectional gRPC stream, matched by id. The service descriptor is the caller's (this
// package does not depend on the contract); its shape is checked when a client or server is made.
import { create, type DescMessage, type DescMethod, type DescService, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { asBuffer, MAX_GRPC_MESSAGE_BYTES } from "./grpcAdapter.js";

/** A stream-of-calls service: one bidirectional method, CallFrame in and AnswerFrame out. */
export type CallsService = Pick<DescService, "typeName" | "methods">;

/** Gateway to runner: a call (CallStart) or the cancellation of one (CallCancel). */
export type CallFrame =
  | {
      frame: {
        case: "call";
        value: {
          id: number;
          method: string;
          request: Uint8Array;
          deadlineMs: number;
          metadata: Record<string, string>;
        };
      };
    }
  | { frame: { case: "cancel"; value: { id: number } } };

/** Runner to gateway: one call's answer bytes, or its status (CallError). */
export interface AnswerFrame {
  id: number;
  outcome:
    | { case: "response"; value: Uint8Array }
    | { case: "error"; value: { code: number; message: string; trailers: Record<string, string> } }
    | { case: undefined; value?: undefined };
}

/**
 * Room kept in a frame for its envelope (id, method, metadata): a request or answer message may be
 * this much smaller than MAX_GRPC_MESSAGE_BYTES, so that the frame carrying it is still received.
 */
export const FRAME_ENVELOPE_BYTES = 64 * 1024;

/** The longest timer Node keeps (setTimeout fires at once past it): longer deadlines wait this long. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Largest request or answer message a frame carries, in bytes. */
export const MAX_FRAMED_MESSAGE_BYTES = MAX_GRPC_MESSAGE_BYTES - FRAME_ENVELOPE_BYTES;

/** The stream method of the service, its path, and the codecs of its two frame messages. */
export function callsMethod(calls: CallsService) {
  const method = calls.methods.find((candidate) => candidate.methodKind === "bidi_streaming");
  if (!method || calls.methods.length !== 1) throw new Error(`${calls.typeName}: expected one bidi-streaming method`);
  expectFields(method.input, ["call", "cancel"]);
  expectFields(method.output, ["id", "response", "error"]);
  return {
    method,
    path: `/${calls.typeName}/${method.name}`,
    input: codec(method.input),
    output: codec(method.output),
  };
}

function expectFields(schema: DescMessage, names: readonly string[]): void {
  const known = new Set(schema.fields.map((field) => field.localName));
  const missing = names.filter((name) => !known.has(name));
  if (missing.length > 0) throw new Error(`${schema.typeName}: not a call frame (no ${missing.join(", ")})`);
}

function codec(schema: DescMessage) {
  return {
    serialize: (frame: unknown) => asBuffer(toBinary(schema, create(schema, frame as never))),
    deserialize: (bytes: Buffer): unknown => fromBinary(schema, bytes),
  };
}

/** The string entries of metadata (first value per key); binary (-bin) entries are not carried. */
export function metadataEntries(metadata: grpc.Metadata, skip?: ReadonlySet<string>): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata.getMap()))
    if (typeof value === "string" && !skip?.has(key)) entries[key] = value;
  return entries;
}

/** Metadata holding these entries (but those in `skip`), added to a copy of `base` when given. */
export function metadataOf(
  entries: Record<string, string>,
  base?: grpc.Metadata,
  skip?: ReadonlySet<string>,
): grpc.Metadata {
  const metadata = base?.clone() ?? new grpc.Metadata();
  for (const key in entries) if (!skip?.has(key)) metadata.set(key, entries[key]!);
  return metadata;
}

/** The method's name on the wire, as a call frame names it ("FindDefinition"). */
export function frameMethodName(method: DescMethod): string {
  return method.name;
}
