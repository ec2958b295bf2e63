// Turns protoc-gen-es service descriptors into @grpc/grpc-js service definitions, servers and
// promise-based typed clients, so neither service hand-writes (de)serialisers.
import {
  create,
  type DescMessage,
  type DescMethod,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import * as grpc from "@grpc/grpc-js";
import { EncodedMessage } from "./encodedMessage.js";
import type { CallCredentials, PeerAuthContext } from "./grpcAuth.js";
import {
  applyInterceptors,
  type CallContext,
  callMetadataInterceptor,
  type Interceptor,
  type UnaryNext,
} from "./interceptors.js";

/** The unary methods of a generated service, as `name -> { input, output }` schemas. */
type UnaryMethods = GenServiceMethods;

/**
 * Largest gRPC message a runner's server or a gateway's channel receives, in bytes (grpc-js's
 * default is 4 MiB). One value, so both ends of the Runner service agree on it.
 */
export const MAX_GRPC_MESSAGE_BYTES = 16 * 1024 * 1024;

/** A server-side implementation: one async function per RPC, taking the request and call context. */
export type ServiceImplementation<M extends UnaryMethods> = {
  [K in keyof M]: (
    request: MessageShape<M[K]["input"]>,
    context: CallContext,
  ) => Promise<MessageInitShape<M[K]["output"]>>;
};

/** A typed client: one promise-returning function per RPC. */
export type ServiceClient<M extends UnaryMethods> = {
  [K in keyof M]: (
    request: MessageInitShape<M[K]["input"]>,
    options?: CallOptions,
  ) => Promise<MessageShape<M[K]["output"]>>;
} & {
  close(): void;
  /** The grpc-js channel; absent for an in-process client (createInProcessClient). */
  readonly channel?: grpc.Client;
};

export interface CallOptions {
  /** Per-call deadline in ms from now. */
  timeoutMs?: number;
  metadata?: grpc.Metadata;
  signal?: AbortSignal;
}

/** An error carrying a gRPC status, thrown by handlers to choose the status the client sees. */
export class GrpcStatusError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
    readonly trailers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "GrpcStatusError";
  }
}

function methodPath(service: GenService<UnaryMethods>, methodName: string): string {
  return `/${service.typeName}/${methodName}`;
}

/** The bytes as a Buffer without copying them (toBinary's array is new and nobody else's). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function serializerFor(schema: DescMessage) {
  return {
    serialize: (value: unknown) =>
      asBuffer(value instanceof EncodedMessage ? value.bytes : toBinary(schema, value as MessageShape<DescMessage>)),
    deserialize: (bytes: Buffer): unknown => fromBinary(schema, bytes),
  };
}

/** A grpc-js ServiceDefinition for every unary method of the service. */
export function grpcServiceDefinition(service: GenService<UnaryMethods>): grpc.ServiceDefinition {
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    if (method.methodKind !== "unary") throw new Error(`${method.name}: only unary RPCs are supported`);
    const input = serializerFor(method.input);
    const output = serializerFor(method.output);
    definition[method.localName] = {
      path: methodPath(service, method.name),
      requestStream: false,
      responseStream: false,
      requestSerialize: input.serialize,
      requestDeserialize: input.deserialize,
      responseSerialize: output.serialize,
      responseDeserialize: output.deserialize,
      originalName: method.name,
    };
  }
  return definition as grpc.ServiceDefinition;
}

/** What a handler's failure becomes on the wire: its chosen status, or INTERNAL without details. */
export function toServiceError(
  error: unknown,
): Pick<grpc.StatusObject, "code" | "details"> & { metadata?: grpc.Metadata } {
  if (error instanceof GrpcStatusError) {
    const metadata = new grpc.Metadata();
    for (const [key, value] of Object.entries(error.trailers)) metadata.set(key, value);
    return { code: error.code, details: error.message, metadata };
  }
  // Unknown failures never leak internals (stack, paths) to the caller.
  return { code: grpc.status.INTERNAL, details: "internal error in the runner; see its logs" };
}

/** Why a call without the right credentials is refused (gRPC UNAUTHENTICATED). */
export const UNAUTHENTICATED_MESSAGE =
  "missing or wrong runner credentials: send this runner's secret (LSPMESH_GRPC_SECRET_FILE; derived per runner with LSPMESH_GRPC_PER_RUNNER_SECRETS) or use the configured mTLS certificates (a client certificate with a name in LSPMESH_GRPC_TLS_CLIENT_NAMES)";

/** What runs around a service's handlers on a grpc-js server, besides the handlers themselves. */
export interface ServiceOptions {
  /** Run around every authorized call, the first outermost (applyInterceptors). */
  interceptors?: readonly Interceptor[];
  /** Checks every call's credentials before anything else runs; false answers UNAUTHENTICATED. */
  authorize?: (call: CallCredentials) => boolean;
  /** Told of failures that are not a GrpcStatusError (the caller sees INTERNAL without details). */
  onUnexpectedError?: (method: string, error: unknown, context: CallContext) => void;
}

/** Registers a typed implementation on a grpc-js server. */
export function addService<M extends UnaryMethods>(
  server: grpc.Server,
  service: GenService<M>,
  implementation: ServiceImplementation<M>,
  { interceptors = [], authorize = () => true, onUnexpectedError = () => {} }: ServiceOptions = {},
): void {
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const method of service.methods) {
    const handle = applyInterceptors(interceptors, handlerOf(implementation, method.localName));
    const output = method.output;
    handlers[method.localName] = ((
      call: grpc.ServerUnaryCall<unknown, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      if (!authorize(new ServerCallCredentials(call))) {
        callback({ code: grpc.status.UNAUTHENTICATED, details: UNAUTHENTICATED_MESSAGE } as grpc.ServiceError);
        return;
      }
      const abort = new AbortController();
      // grpc-js also says "cancelled" once the answer has gone; the signal is for cancellation
      // while the handler still works (aborting it after the call cost an Error and an abort per call).
      let answered = false;
      call.on("cancelled", () => {
        if (!answered) abort.abort(new Error("cancelled by client"));
      });
      const deadline = call.getDeadline();
      const deadlineAt = deadline instanceof Date ? deadline.getTime() : Number(deadline);
      const context: CallContext = {
        metadata: call.metadata,
        signal: abort.signal,
        deadlineMs: Number.isFinite(deadlineAt) ? Math.max(0, deadlineAt - Date.now()) : Number.POSITIVE_INFINITY,
      };
      handle({ method, request: call.request, context }).then(
        (answer) => {
          answered = true;
          callback(null, answer instanceof EncodedMessage ? answer : create(output, answer as never));
        },
        (error: unknown) => {
          answered = true;
          if (!(error instanceof GrpcStatusError)) onUnexpectedError(method.name, error, context);
          callback(toServiceError(error) as grpc.ServiceError);
        },
      );
    }) as grpc.handleUnaryCall<unknown, unknown>;
  }
  server.addService(grpcServiceDefinition(service), handlers);
}

/** A call's (or a stream's) credentials; its TLS details are looked up only if authorize reads them. */
export class ServerCallCredentials implements CallCredentials {
  readonly metadata: grpc.Metadata;

  constructor(private readonly call: Pick<grpc.ServerUnaryCall<unknown, unknown>, "metadata" | "getAuthContext">) {
    this.metadata = call.metadata;
  }

  get authContext(): PeerAuthContext {
    return this.call.getAuthContext();
  }
}

/** The end of a chain: the implementation's handler of one method, given the call's request and context. */
export function handlerOf<M extends UnaryMethods>(
  implementation: ServiceImplementation<M>,
  localName: string,
): UnaryNext {
  const handle = implementation[localName as keyof M] as (request: unknown, context: CallContext) => Promise<unknown>;
  // A method missing from the implementation fails only when it is called.
  return (call) => handle(call.request, call.context);
}

/**
 * The implementation with interceptors around each of its methods, for code that calls it without a
 * server or client in between (a worker process answering its supervisor).
 */
export function interceptImplementation<M extends UnaryMethods>(
  service: GenService<M>,
  implementation: ServiceImplementation<M>,
  interceptors: readonly Interceptor[],
): ServiceImplementation<M> {
  const intercepted: Record<string, unknown> = { ...implementation };
  for (const method of service.methods) {
    if (!(method.localName in implementation)) continue;
    const handle = applyInterceptors(interceptors, handlerOf(implementation, method.localName));
    intercepted[method.localName] = (request: unknown, context: CallContext) => handle({ method, request, context });
  }
  return intercepted as ServiceImplementation<M>;
}

/** What runs around a client's calls. */
export interface ClientOptions {
  /** Run around every call, the first outermost; after the last one the call goes out. */
  interceptors?: readonly Interceptor[];
}

/**
 * Channel options every client starts from; the caller's own override them. channelz keeps
 * per-call counters and timestamps on the channel, subchannel and transport for an admin
 * service that no lspmesh process serves.
 */
const CLIENT_CHANNEL_DEFAULTS: grpc.ClientOptions = { "grpc.enable_channelz": 0 };

/**
 * A promise-based client for every unary method of the service. `options` may be just a function
 * giving metadata for every call (the shared secret): short for `{ interceptors: [callMetadataInterceptor(fn)] }`.
 */
export function createClient<M extends UnaryMethods>(
  service: GenService<M>,
  address: string,
  credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
  channelOptions: grpc.ClientOptions = {},
  options: ClientOptions | (() => Record<string, string> | undefined) = {},
): ServiceClient<M> {
  const { interceptors = [] } =
    typeof options === "function" ? { interceptors: [callMetadataInterceptor(options)] } : options;
  const channel = openChannel(service, address, credentials, channelOptions);
  return typedClient(service, channel, interceptors, (method) => networkCall(channel, method));
}

/** A grpc-js client (its channel) of every unary method of the service; it connects lazily. */
export function openChannel(
  service: GenService<UnaryMethods>,
  address: string,
  credentials: grpc.ChannelCredentials,
  channelOptions: grpc.ClientOptions,
): grpc.Client {
  const Constructor = grpc.makeGenericClientConstructor(grpcServiceDefinition(service), service.typeName);
  return new Constructor(address, credentials, { ...CLIENT_CHANNEL_DEFAULTS, ...channelOptions });
}

/**
 * The typed client over a channel: each method builds its request and context, then runs the
 * interceptors around `last(method)` (the call on the channel, or on a stream of calls).
 */
export function typedClient<M extends UnaryMethods>(
  service: GenService<M>,
  channel: grpc.Client,
  interceptors: readonly Interceptor[],
  last: (method: DescMethod) => UnaryNext,
  close: () => void = () => channel.close(),
): ServiceClient<M> {
  const client: Record<string, unknown> = { channel, close };
  for (const method of service.methods) {
    const input = method.input;
    const handle = applyInterceptors(interceptors, last(method));
    client[method.localName] = (request: MessageInitShape<DescMessage>, callOptions: CallOptions = {}) => {
      // A request that cannot be built rejects the call rather than throwing at the caller.
      try {
        return handle({
          method,
          request: create(input, request),
          context: {
            metadata: callOptions.metadata?.clone() ?? new grpc.Metadata(),
            // Without a caller's signal, one that never aborts: interceptors may still listen to it.
            signal: callOptions.signal ?? new AbortController().signal,
            deadlineMs: callOptions.timeoutMs ?? Number.POSITIVE_INFINITY,
          },
        });
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return client as ServiceClient<M>;
}

/**
 * The end of a client's chain: the call on the channel, with the context's deadline, cancelled
 * when its signal aborts (at once if it already has; the listener goes when the call ends).
 */
export function networkCall(channel: grpc.Client, method: DescMethod): UnaryNext {
  const input = method.input;
  const rpc = (channel as unknown as Record<string, Function>)[method.localName]!.bind(channel);
  return (call) =>
    new Promise((resolve, reject) => {
      const { deadlineMs, metadata, signal } = call.context;
      const callOptions: grpc.CallOptions = Number.isFinite(deadlineMs) ? { deadline: Date.now() + deadlineMs } : {};
      let ended = false;
      const cancel = () => pending.cancel();
      const pending = rpc(
        create(input, call.request as MessageInitShape<DescMessage>),
        metadata,
        callOptions,
        (error: grpc.ServiceError | null, answer: unknown) => {
          ended = true;
          signal.removeEventListener("abort", cancel);
          error ? reject(error) : resolve(answer);
        },
      ) as grpc.ClientUnaryCall;
      if (signal.aborted) pending.cancel();
      else if (!ended) signal.addEventListener("abort", cancel, { once: true });
    });
}
