// A typed client that calls a service implementation in the same process: the same interface,
// messages and failures as a gRPC client (a ServiceError with status, details and trailers), without
// serialising, a socket or HTTP/2. `lspmesh serve` and `lspmesh mcp` call their runner this way.
import { create, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import * as grpc from "@grpc/grpc-js";
import { answerMessage } from "./encodedMessage.js";
import {
  type CallOptions,
  GrpcStatusError,
  handlerOf,
  type ServiceClient,
  type ServiceImplementation,
  type ServiceOptions,
  toServiceError,
} from "./grpcAdapter.js";
import { applyInterceptors, type CallContext } from "./interceptors.js";

/** A grpc-js ServiceError as the network client would raise it. */
export function serviceError(code: grpc.status, details: string, metadata = new grpc.Metadata()): grpc.ServiceError {
  return Object.assign(new Error(`${code} ${grpc.status[code]}: ${details}`), { code, details, metadata });
}

/**
 * What runs around an in-process client's calls. The interceptors run as on a server, around the
 * implementation: they see the request message and the context the handler gets.
 */
export type InProcessClientOptions = Pick<ServiceOptions, "interceptors" | "onUnexpectedError">;

export function createInProcessClient<M extends GenServiceMethods>(
  service: GenService<M>,
  implementation: ServiceImplementation<M>,
  { interceptors = [], onUnexpectedError = () => {} }: InProcessClientOptions = {},
): ServiceClient<M> {
  let closed = false;
  const client: Record<string, unknown> = {
    close: () => {
      closed = true;
    },
  };
  for (const method of service.methods) {
    const handle = applyInterceptors(interceptors, handlerOf(implementation, method.localName));
    const { input, output } = method as { input: DescMessage; output: DescMessage };
    client[method.localName] = (request: MessageInitShape<DescMessage>, options: CallOptions = {}) => {
      if (closed) return Promise.reject(serviceError(grpc.status.UNAVAILABLE, "the client was closed"));
      const metadata = options.metadata?.clone() ?? new grpc.Metadata();
      const abort = new AbortController();
      const context: CallContext = {
        metadata,
        signal: abort.signal,
        deadlineMs: options.timeoutMs ?? Number.POSITIVE_INFINITY,
      };
      return new Promise((resolve, reject) => {
        // Like the network client: a deadline or a cancel ends the call at once, the handler is told.
        const end = (code: grpc.status, details: string) => {
          abort.abort(new Error(details));
          reject(serviceError(code, details));
        };
        const timer =
          options.timeoutMs === undefined
            ? undefined
            : setTimeout(() => end(grpc.status.DEADLINE_EXCEEDED, "Deadline exceeded"), options.timeoutMs);
        const onCancel = () => end(grpc.status.CANCELLED, "Cancelled on client");
        options.signal?.addEventListener("abort", onCancel, { once: true });
        if (options.signal?.aborted) onCancel();
        const settle = () => {
          clearTimeout(timer);
          options.signal?.removeEventListener("abort", onCancel);
        };
        handle({ method, request: create(input, request), context }).then(
          (answer) => {
            settle();
            resolve(answerMessage(output, answer));
          },
          (error: unknown) => {
            settle();
            const status = toServiceError(error);
            if (!(error instanceof GrpcStatusError)) onUnexpectedError(method.name, error, context);
            reject(serviceError(status.code, status.details, status.metadata));
          },
        );
      });
    };
  }
  return client as ServiceClient<M>;
}
