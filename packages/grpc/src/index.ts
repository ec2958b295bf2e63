export { Metadata, type ServiceError, status as GrpcStatus } from "@grpc/grpc-js";
// Many calls on one long-lived stream per channel (a stream-of-calls service, lspmesh.v1.RunnerCalls).
export { type CallsService, MAX_FRAMED_MESSAGE_BYTES } from "./callFrames.js";
// An answer already in protobuf binary, written as it is (a handler relaying another process's answer).
export { EncodedMessage } from "./encodedMessage.js";
// Servers and network clients built from generated service descriptors.
export {
  /** `addService(server, service, implementation, { interceptors, authorize, onUnexpectedError })` */
  addService,
  type CallOptions,
  type ClientOptions,
  /** `createClient(service, address, credentials?, channelOptions?, { interceptors })` */
  createClient,
  GrpcStatusError,
  grpcServiceDefinition,
  /** Interceptors around an implementation that is called with no server or client in between. */
  interceptImplementation,
  /** Largest gRPC message runners and gateways receive, in bytes (16 MiB). */
  MAX_GRPC_MESSAGE_BYTES,
  type ServiceClient,
  type ServiceImplementation,
  type ServiceOptions,
  toServiceError,
  UNAUTHENTICATED_MESSAGE,
} from "./grpcAdapter.js";
export * from "./grpcAuth.js";
// The same service called in this process, failing as a network client would.
export { createInProcessClient, type InProcessClientOptions, serviceError } from "./inProcessClient.js";
// Code run around every call, `(next) => async (call) => …`, the first interceptor outermost.
export {
  applyInterceptors,
  type CallContext,
  /** Client side: metadata for every call, read per call (a rotated secret applies at once). */
  callMetadataInterceptor,
  /** Counts calls under way; `settled(graceMs)` lets them finish on close. */
  InFlightCalls,
  type Interceptor,
  type UnaryCall,
  type UnaryNext,
} from "./interceptors.js";
export {
  /** `createMultiplexedClient(service, address, credentials, channelOptions, { calls, interceptors })` */
  createMultiplexedClient,
  DEFAULT_MAX_STREAM_AGE_MS,
  type MultiplexedClientOptions,
} from "./multiplexedClient.js";
export {
  /** `addMultiplexedService(server, calls, service, implementation, options)`; drain() before shutting down. */
  addMultiplexedService,
  type MultiplexedService,
  type MultiplexedServiceOptions,
} from "./multiplexedServer.js";
// OpenTelemetry spans around calls, W3C trace context in their metadata (added while tracing is on).
export {
  type ClientTracingOptions,
  clientTracingInterceptor,
  metadataGetter,
  metadataSetter,
  serverTracingInterceptor,
} from "./tracingInterceptors.js";
