// Turns protoc-gen-es service descriptors into @grpc/grpc-js service definitions, servers and
// promise-based typed clients, so neither service hand-writes (de)serialisers.
import {
  create,
  type DescMessage,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import * as grpc from "@grpc/grpc-js";
import type { CallCredentials } from "./grpcAuth.js";
import {
  applyInterceptors,
  type CallContext,
  callMetadataInterceptor,
  type Interceptor,
  type UnaryCall,
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

function serializerFor(schema: DescMessage) {
  return {
    serialize: (value: unknown) => Buffer.from(toBinary(schema, value as MessageShape<DescMessage>)),
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
      if (!authorize({ metadata: call.metadata, authContext: call.getAuthContext() })) {
        callback({ code: grpc.status.UNAUTHENTICATED, details: UNAUTHENTICATED_MESSAGE } as grpc.ServiceError);
        return;
      }
      const abort = new AbortController();
      call.on("cancelled", () => abort.abort(new Error("cancelled by client")));
      const deadline = call.getDeadline();
      const deadlineAt = deadline instanceof Date ? deadline.getTime() : Number(deadline);
      const context: CallContext = {
        metadata: call.metadata,
        signal: abort.signal,
        deadlineMs: Number.isFinite(deadlineAt) ? Math.max(0, deadlineAt - Date.now()) : Number.POSITIVE_INFINITY,
      };
      handle({ method, request: call.request, context }).then(
        (answer) => callback(null, create(output, answer as never)),
        (error: unknown) => {
          if (!(error instanceof GrpcStatusError)) onUnexpectedError(method.name, error, context);
          callback(toServiceError(error) as grpc.ServiceError);
        },
      );
    }) as grpc.handleUnaryCall<unknown, unknown>;
  }
  server.addService(grpcServiceDefinition(service), handlers);
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
  const Constructor = grpc.makeGenericClientConstructor(grpcServiceDefinition(service), service.typeName);
  const channel = new Constructor(address, credentials, channelOptions);
  const client: Record<string, unknown> = { channel, close: () => channel.close() };
  for (const method of service.methods) {
    const input = method.input;
    const rpc = (channel as unknown as Record<string, Function>)[method.localName]!.bind(channel);
    const send = (call: UnaryCall) =>
      new Promise((resolve, reject) => {
        const callOptions: grpc.CallOptions = {};
        const { deadlineMs, metadata, signal } = call.context;
        if (Number.isFinite(deadlineMs)) callOptions.deadline = Date.now() + deadlineMs;
        const pending = rpc(
          create(input, call.request as MessageInitShape<DescMessage>),
          metadata,
          callOptions,
          (error: grpc.ServiceError | null, answer: unknown) => (error ? reject(error) : resolve(answer)),
        ) as grpc.ClientUnaryCall;
        signal.addEventListener("abort", () => pending.cancel(), { once: true });
      });
    const handle = applyInterceptors(interceptors, send);
    // async: a request that cannot be built rejects the call rather than throwing at the caller.
    client[method.localName] = async (request: MessageInitShape<DescMessage>, callOptions: CallOptions = {}) =>
      handle({
        method,
        request: create(input, request),
        context: {
          metadata: callOptions.metadata?.clone() ?? new grpc.Metadata(),
          // Without a caller's signal, one that never aborts: interceptors may still listen to it.
          signal: callOptions.signal ?? new AbortController().signal,
          deadlineMs: callOptions.timeoutMs ?? Number.POSITIVE_INFINITY,
        },
      });
  }
  return client as ServiceClient<M>;
}
