// A client whose unary calls all travel on one long-lived bidirectional stream per channel (a
// stream of calls, callFrames.ts) instead of one HTTP/2 stream each: the same typed interface,
// interceptors, deadlines, cancellation and errors as createClient. The stream opens at the first
// call and again after it breaks; it is replaced after a maximum age and when the credentials the
// calls carry change. A server without the stream method (UNIMPLEMENTED) gets unary calls.
import { create, type DescMessage, type DescMethod, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import * as grpc from "@grpc/grpc-js";
import {
  type AnswerFrame,
  type CallFrame,
  type CallsService,
  callsMethod,
  frameMethodName,
  MAX_FRAMED_MESSAGE_BYTES,
  MAX_TIMER_MS,
  metadataEntries,
  metadataOf,
} from "./callFrames.js";
import { type ClientOptions, networkCall, openChannel, type ServiceClient, typedClient } from "./grpcAdapter.js";
import { GRPC_AUTHORIZATION_KEY } from "./grpcAuth.js";
import { serviceError } from "./inProcessClient.js";
import type { UnaryCall, UnaryNext } from "./interceptors.js";

export interface MultiplexedClientOptions extends ClientOptions {
  /** The stream-of-calls service (lspmesh.v1.RunnerCalls). */
  calls: CallsService;
  /** A stream older than this takes no new calls (the credentials are checked again on the next); default 5 min. */
  maxStreamAgeMs?: number;
  /** Metadata sent once when a stream opens instead of with each call; default the secret (authorization). */
  streamKeys?: readonly string[];
  /** Methods (local names) always called unary, e.g. ones with answers large enough to hold up others. */
  unaryMethods?: readonly string[];
}

/** How long a stream takes new calls, and how long a server without the stream method gets unary calls. */
export const DEFAULT_MAX_STREAM_AGE_MS = 5 * 60_000;

/** One call under way on a stream. */
interface PendingCall {
  readonly method: DescMethod;
  readonly call: UnaryCall;
  readonly startedAt: number;
  readonly unary: UnaryNext;
  resolve(answer: unknown): void;
  reject(error: unknown): void;
  /** Stops the call's deadline timer and abort listener. */
  release(): void;
}

type Calls = ReturnType<typeof callsMethod>;

/**
 * `createClient`'s typed client, its calls sent on a stream of `options.calls`: the interceptors
 * still run per call (their metadata goes in the call's frame; `streamKeys` at the stream's opening).
 */
export function createMultiplexedClient<M extends GenServiceMethods>(
  service: GenService<M>,
  address: string,
  credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
  channelOptions: grpc.ClientOptions = {},
  options: MultiplexedClientOptions,
): ServiceClient<M> {
  const channel = openChannel(service, address, credentials, channelOptions);
  const streams = new CallStreams(channel, callsMethod(options.calls), options);
  const unaryOnly = new Set(options.unaryMethods ?? []);
  const last = (method: DescMethod): UnaryNext => {
    const unary = networkCall(channel, method);
    return unaryOnly.has(method.localName) ? unary : (call) => streams.call(method, call, unary);
  };
  return typedClient(service, channel, options.interceptors ?? [], last, () => {
    streams.close();
    channel.close();
  });
}

/** The stream that takes new calls, replaced when it broke, aged or its credentials changed. */
class CallStreams {
  private current: CallStream | undefined;
  private unaryUntil = 0;
  private nextId = 0;
  private closed = false;
  private readonly streamKeys: ReadonlySet<string>;
  private readonly maxAgeMs: number;

  constructor(
    private readonly channel: grpc.Client,
    private readonly calls: Calls,
    options: MultiplexedClientOptions,
  ) {
    this.streamKeys = new Set(options.streamKeys ?? [GRPC_AUTHORIZATION_KEY]);
    this.maxAgeMs = options.maxStreamAgeMs ?? DEFAULT_MAX_STREAM_AGE_MS;
  }

  call(method: DescMethod, call: UnaryCall, unary: UnaryNext): Promise<unknown> {
    if (this.closed) return Promise.reject(serviceError(grpc.status.UNAVAILABLE, "the client was closed"));
    if (this.unaryUntil > Date.now()) return unary(call);
    const stream = this.streamFor(call.context.metadata);
    this.nextId = this.nextId >= 0xffff_ffff ? 1 : this.nextId + 1;
    return stream.send(this.nextId, method, call, unary, this.streamKeys);
  }

  close(): void {
    this.closed = true;
    this.current?.retire();
    this.current = undefined;
  }

  /** What tells the credentials a call carries apart: a new stream opens when it changes. */
  private credentialsKey(metadata: grpc.Metadata): string {
    let key = "";
    for (const name of this.streamKeys) {
      const [value] = metadata.get(name);
      if (typeof value === "string") key += `${name}=${value}\n`;
    }
    return key;
  }

  /** The stream for a call with this metadata: the current one, or one opened with its credentials. */
  private streamFor(metadata: grpc.Metadata): CallStream {
    const key = this.credentialsKey(metadata);
    const current = this.current;
    if (current?.takesCalls(key, this.maxAgeMs)) return current;
    current?.retire();
    const opening = new grpc.Metadata();
    for (const name of this.streamKeys) for (const value of metadata.get(name)) opening.add(name, value);
    const stream = new CallStream(this.channel, this.calls, opening, key, (pending) => this.fallBack(pending));
    this.current = stream;
    return stream;
  }

  /** The server has no stream method: these calls, and the next ones for a while, go unary. */
  private fallBack(pending: readonly PendingCall[]): void {
    this.unaryUntil = Date.now() + this.maxAgeMs;
    for (const call of pending) {
      const left = call.call.context.deadlineMs - (Date.now() - call.startedAt);
      const context = { ...call.call.context, deadlineMs: Math.max(0, left) };
      call.unary({ ...call.call, context }).then(call.resolve, call.reject);
    }
  }
}

/** One bidirectional stream and the calls under way on it. */
class CallStream {
  private readonly openedAt = Date.now();
  private readonly pending = new Map<number, PendingCall>();
  private readonly duplex: grpc.ClientDuplexStream<CallFrame, AnswerFrame>;
  private state: "open" | "retired" | "ended" = "open";
  private answered = false;

  constructor(
    channel: grpc.Client,
    calls: Calls,
    metadata: grpc.Metadata,
    private readonly key: string,
    private readonly unimplemented: (pending: readonly PendingCall[]) => void,
  ) {
    this.duplex = channel.makeBidiStreamRequest(
      calls.path,
      calls.input.serialize,
      calls.output.deserialize as (bytes: Buffer) => AnswerFrame,
      metadata,
    );
    this.duplex.on("data", (frame: AnswerFrame) => this.answer(frame));
    // The failure also arrives as the status, handled there.
    this.duplex.on("error", () => {});
    this.duplex.on("status", (status: grpc.StatusObject) => setImmediate(() => this.ended(status)));
  }

  /** Whether a new call with these credentials may go on this stream. */
  takesCalls(key: string, maxAgeMs: number): boolean {
    return this.state === "open" && this.key === key && Date.now() - this.openedAt < maxAgeMs;
  }

  /** Takes no new calls; the server answers those under way, then ends the stream. */
  retire(): void {
    if (this.state !== "open") return;
    this.state = "retired";
    this.duplex.end();
  }

  send(
    id: number,
    method: DescMethod,
    call: UnaryCall,
    unary: UnaryNext,
    streamKeys: ReadonlySet<string>,
  ): Promise<unknown> {
    const { deadlineMs, signal, metadata } = call.context;
    if (signal.aborted) return Promise.reject(serviceError(grpc.status.CANCELLED, "Cancelled on client"));
    const request = toBinary(method.input, create(method.input, call.request as never));
    if (request.byteLength > MAX_FRAMED_MESSAGE_BYTES)
      return Promise.reject(
        serviceError(
          grpc.status.RESOURCE_EXHAUSTED,
          `the request is larger than a runner accepts (${request.byteLength} bytes, at most ${MAX_FRAMED_MESSAGE_BYTES})`,
        ),
      );
    return new Promise((resolve, reject) => {
      const timer = Number.isFinite(deadlineMs)
        ? setTimeout(
            () => this.abandon(id, grpc.status.DEADLINE_EXCEEDED, "Deadline exceeded"),
            Math.min(deadlineMs, MAX_TIMER_MS),
          )
        : undefined;
      const onAbort = () => this.abandon(id, grpc.status.CANCELLED, "Cancelled on client");
      signal.addEventListener("abort", onAbort, { once: true });
      const release = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      };
      this.pending.set(id, { method, call, startedAt: Date.now(), unary, resolve, reject, release });
      const frameDeadline = Number.isFinite(deadlineMs)
        ? Math.min(Math.max(1, Math.ceil(deadlineMs)), MAX_TIMER_MS)
        : 0;
      const entries = metadataEntries(metadata, streamKeys);
      this.write({
        frame: {
          case: "call",
          value: { id, method: frameMethodName(method), request, deadlineMs: frameDeadline, metadata: entries },
        },
      });
    });
  }

  /** The caller stopped waiting (deadline, cancel): the call fails now, the runner is told to stop. */
  private abandon(id: number, code: grpc.status, details: string): void {
    const call = this.take(id);
    if (!call) return;
    call.reject(serviceError(code, details));
    // A retired stream's writing side is closed: the runner's own deadline stops the call.
    if (this.state === "open") this.write({ frame: { case: "cancel", value: { id } } });
  }

  private take(id: number): PendingCall | undefined {
    const call = this.pending.get(id);
    if (!call) return undefined;
    this.pending.delete(id);
    call.release();
    return call;
  }

  private answer(frame: AnswerFrame): void {
    this.answered = true;
    // Gone already when its deadline passed or it was cancelled.
    const call = this.take(frame.id);
    if (!call) return;
    const { outcome } = frame;
    if (outcome.case === "response") {
      try {
        call.resolve(fromBinary(call.method.output as DescMessage, outcome.value));
      } catch (error) {
        call.reject(serviceError(grpc.status.INTERNAL, `undecodable answer: ${(error as Error).message}`));
      }
    } else if (outcome.case === "error") {
      const { code, message, trailers } = outcome.value;
      call.reject(serviceError(code, message, metadataOf(trailers)));
    } else call.reject(serviceError(grpc.status.INTERNAL, "an answer frame without an outcome"));
  }

  /**
   * The stream is over: calls still under way fail as a unary call would when its connection goes
   * (UNAVAILABLE, so a caller may try another server), or as a refused one (its credentials).
   */
  private ended(status: grpc.StatusObject): void {
    this.state = "ended";
    const calls = [...this.pending.keys()].map((id) => this.take(id)!);
    if (calls.length === 0) return;
    if (status.code === grpc.status.UNIMPLEMENTED && !this.answered) {
      this.unimplemented(calls);
      return;
    }
    const refused = status.code === grpc.status.UNAUTHENTICATED || status.code === grpc.status.PERMISSION_DENIED;
    const broken = `the stream of calls to the runner ended (${grpc.status[status.code]}: ${status.details})`;
    for (const call of calls)
      call.reject(
        refused
          ? serviceError(status.code, status.details, status.metadata.clone())
          : serviceError(grpc.status.UNAVAILABLE, broken),
      );
  }

  private write(frame: CallFrame): void {
    if (this.state === "ended") return;
    try {
      this.duplex.write(frame);
    } catch {
      // Written after the stream failed: its status fails the calls under way.
    }
  }
}
