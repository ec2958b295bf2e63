// The server side of a stream of calls (callFrames.ts): the stream is authorized once, like a
// unary call; then each call frame runs through the same interceptors and handler as a unary call
// of the service, with its own deadline, cancellation and status, and at most a bounded number at
// once per stream (past it the stream is read no further until calls end: flow control, no error).
import { type DescMessage, type DescMethod, fromBinary } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import * as grpc from "@grpc/grpc-js";
import {
  type AnswerFrame,
  type CallFrame,
  type CallsService,
  callsMethod,
  MAX_FRAMED_MESSAGE_BYTES,
  MAX_TIMER_MS,
  metadataEntries,
  metadataOf,
} from "./callFrames.js";
import { answerBytes } from "./encodedMessage.js";
import {
  GrpcStatusError,
  handlerOf,
  ServerCallCredentials,
  type ServiceImplementation,
  type ServiceOptions,
  toServiceError,
  UNAUTHENTICATED_MESSAGE,
} from "./grpcAdapter.js";
import { GRPC_AUTHORIZATION_KEY } from "./grpcAuth.js";
import { applyInterceptors, type CallContext, type UnaryNext } from "./interceptors.js";

export interface MultiplexedServiceOptions extends ServiceOptions {
  /** Calls run at once per stream; default 256. */
  maxConcurrentCalls?: number;
}

/** The registered stream service. */
export interface MultiplexedService {
  /**
   * Shutting down: streams answer their calls under way, then end; calls arriving meanwhile fail
   * UNAVAILABLE (the caller tries another server). Call it before the server's tryShutdown, which
   * would otherwise wait for the streams, which live as long as their clients.
   */
  drain(): void;
}

const DEFAULT_MAX_CONCURRENT_CALLS = 256;

const STREAM_ONLY_KEYS: ReadonlySet<string> = new Set([GRPC_AUTHORIZATION_KEY]);

/** One method's decoding, chain and encoding, looked up by its wire name. */
interface ServedMethod {
  readonly method: DescMethod;
  readonly handle: UnaryNext;
}

interface StreamSettings {
  readonly methods: ReadonlyMap<string, ServedMethod>;
  readonly maxConcurrentCalls: number;
  readonly onUnexpectedError: NonNullable<ServiceOptions["onUnexpectedError"]>;
  readonly draining: () => boolean;
}

/** Registers the stream-of-calls service `calls`, carrying the calls of `service` to `implementation`. */
export function addMultiplexedService<M extends GenServiceMethods>(
  server: grpc.Server,
  calls: CallsService,
  service: GenService<M>,
  implementation: ServiceImplementation<M>,
  options: MultiplexedServiceOptions = {},
): MultiplexedService {
  const { interceptors = [], authorize = () => true, onUnexpectedError = () => {} } = options;
  const { method: streamMethod, path, input, output } = callsMethod(calls);
  const methods = new Map<string, ServedMethod>();
  for (const method of service.methods)
    methods.set(method.name, {
      method,
      handle: applyInterceptors(interceptors, handlerOf(implementation, method.localName)),
    });
  const streams = new Set<ServedStream>();
  let draining = false;
  const settings: StreamSettings = {
    methods,
    maxConcurrentCalls: options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS,
    onUnexpectedError,
    draining: () => draining,
  };
  const definition = {
    [streamMethod.localName]: {
      path,
      requestStream: true,
      responseStream: true,
      requestSerialize: input.serialize,
      requestDeserialize: input.deserialize,
      responseSerialize: output.serialize,
      responseDeserialize: output.deserialize,
      originalName: streamMethod.name,
    },
  } as grpc.ServiceDefinition;
  const handler = (stream: grpc.ServerDuplexStream<CallFrame, AnswerFrame>) => {
    if (draining || !authorize(new ServerCallCredentials(stream))) {
      const refused = draining
        ? { code: grpc.status.UNAVAILABLE, details: "the runner is shutting down" }
        : { code: grpc.status.UNAUTHENTICATED, details: UNAUTHENTICATED_MESSAGE };
      stream.emit("error", refused);
      return;
    }
    const served = new ServedStream(stream, settings, () => streams.delete(served));
    streams.add(served);
  };
  server.addService(definition, { [streamMethod.localName]: handler });
  return {
    drain() {
      draining = true;
      for (const served of streams) served.endWhenIdle();
    },
  };
}

/** One open stream: its calls under way, each with its own abort controller. */
class ServedStream {
  private readonly running = new Map<number, AbortController>();
  private readonly baseMetadata: grpc.Metadata;
  private paused = false;
  private inputEnded = false;
  private closed = false;

  constructor(
    private readonly stream: grpc.ServerDuplexStream<CallFrame, AnswerFrame>,
    private readonly settings: StreamSettings,
    private readonly forget: () => void,
  ) {
    // What each call's handler sees besides its own frame's entries: the stream's (the credentials).
    this.baseMetadata = metadataOf(metadataEntries(stream.metadata));
    stream.on("data", (frame: CallFrame) => this.receive(frame));
    stream.on("end", () => {
      this.inputEnded = true;
      this.endWhenIdle();
    });
    // The client went away (or the stream was cut): every call under way is cancelled.
    stream.on("cancelled", () => this.close("cancelled by client"));
    stream.on("error", () => this.close("the stream failed"));
  }

  /** Ends the stream once no call is under way (at once if none is). */
  endWhenIdle(): void {
    if (this.closed || this.running.size > 0) return;
    this.closed = true;
    this.forget();
    try {
      this.stream.end();
    } catch {
      // Already gone.
    }
  }

  private close(reason: string): void {
    this.closed = true;
    this.forget();
    for (const abort of this.running.values()) abort.abort(new Error(reason));
  }

  private receive(frame: CallFrame): void {
    if (this.closed) return;
    if (frame.frame.case === "cancel") {
      this.running.get(frame.frame.value.id)?.abort(new Error("cancelled by client"));
      return;
    }
    if (frame.frame.case !== "call") return;
    const call = frame.frame.value;
    const served = this.settings.methods.get(call.method);
    if (this.settings.draining())
      this.fail(call.id, grpc.status.UNAVAILABLE, "the runner is shutting down; try another");
    else if (!served)
      this.fail(call.id, grpc.status.UNIMPLEMENTED, `The server does not implement the method ${call.method}`);
    else if (this.running.has(call.id)) this.fail(call.id, grpc.status.INTERNAL, `call id ${call.id} is under way`);
    else this.start(served, call);
  }

  private start(served: ServedMethod, call: Extract<CallFrame["frame"], { case: "call" }>["value"]): void {
    const { id } = call;
    const abort = new AbortController();
    const timer =
      call.deadlineMs > 0
        ? setTimeout(() => abort.abort(new Error("deadline exceeded")), Math.min(call.deadlineMs, MAX_TIMER_MS))
        : undefined;
    this.running.set(id, abort);
    if (this.running.size >= this.settings.maxConcurrentCalls && !this.paused) {
      this.paused = true;
      this.stream.pause();
    }
    const context: CallContext = {
      // A frame cannot stand in for the credentials the stream was authorized with.
      metadata: metadataOf(call.metadata, this.baseMetadata, STREAM_ONLY_KEYS),
      signal: abort.signal,
      deadlineMs: call.deadlineMs > 0 ? call.deadlineMs : Number.POSITIVE_INFINITY,
      requestBytes: call.request,
    };
    const { method, handle } = served;
    new Promise<unknown>((resolve) =>
      resolve(handle({ method, request: fromBinary(method.input, call.request), context })),
    )
      .then((answer) => this.answer(id, abort.signal, method.output, answer))
      // The handler failed, or its answer could not be encoded: this call fails, the stream goes on.
      .catch((error: unknown) => this.failed(id, abort.signal, method, error, context))
      .catch(() => {})
      .finally(() => {
        clearTimeout(timer);
        this.finish(id);
      });
  }

  private answer(id: number, signal: AbortSignal, output: DescMessage, answer: unknown): void {
    // The caller stopped waiting (deadline, cancel): nobody reads an answer.
    if (signal.aborted) return;
    const response = answerBytes(output, answer);
    if (response.byteLength <= MAX_FRAMED_MESSAGE_BYTES)
      this.write({ id, outcome: { case: "response", value: response } });
    else
      this.fail(
        id,
        grpc.status.RESOURCE_EXHAUSTED,
        `the answer is larger than a gateway accepts (${response.byteLength} bytes, at most ${MAX_FRAMED_MESSAGE_BYTES})`,
      );
  }

  private failed(id: number, signal: AbortSignal, method: DescMethod, error: unknown, context: CallContext): void {
    if (!(error instanceof GrpcStatusError)) this.settings.onUnexpectedError(method.name, error, context);
    if (signal.aborted) return;
    const status = toServiceError(error);
    this.fail(id, status.code, status.details, status.metadata ? metadataEntries(status.metadata) : {});
  }

  private fail(id: number, code: grpc.status, message: string, trailers: Record<string, string> = {}): void {
    this.write({ id, outcome: { case: "error", value: { code, message, trailers } } });
  }

  private finish(id: number): void {
    this.running.delete(id);
    if (this.paused && this.running.size < this.settings.maxConcurrentCalls) {
      this.paused = false;
      this.stream.resume();
    }
    if (this.inputEnded || this.settings.draining()) this.endWhenIdle();
  }

  private write(frame: AnswerFrame): void {
    if (this.closed) return;
    try {
      this.stream.write(frame);
    } catch {
      // The stream is gone: its status has told the client.
    }
  }
}
