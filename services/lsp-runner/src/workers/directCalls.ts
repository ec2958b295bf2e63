// A tenant worker's own gRPC server, for the calls a gateway sends it without the supervisor's
// relay (direct worker connections, docs/architecture.md): the supervisor checked the gateway's
// credential on an HTTP CONNECT and handed the connection's socket over the worker's IPC channel
// (workerConnections.ts); the worker serves the Runner service and its streams of calls on it with
// the implementation the relayed calls reach. No credential ever reaches the worker (the tunnelled
// connection carries none), and its locator answers its own tenant only, whatever a request names.
import { Socket } from "node:net";
import * as grpc from "@grpc/grpc-js";
import {
  addMultiplexedService,
  addService,
  InFlightCalls,
  type Interceptor,
  MAX_GRPC_MESSAGE_BYTES,
  type ServiceImplementation,
  type ServiceOptions,
} from "@lspmesh/grpc";
import { Runner, RunnerCalls } from "@lspmesh/proto";

/** The IPC message that comes with a handed-over socket (TenantWorker.adopt). */
export interface ConnectionMessage {
  kind: typeof CONNECTION_MESSAGE;
  /** Bytes the supervisor read past the CONNECT request, base64 (normally none). */
  head?: string;
}

export const CONNECTION_MESSAGE = "lspmesh/connection";

export interface DirectCallsOptions {
  implementation: ServiceImplementation<typeof Runner.method>;
  /** Run around each call after the worker's own in-flight count (outermost first). */
  interceptors: readonly Interceptor[];
  onUnexpectedError: NonNullable<ServiceOptions["onUnexpectedError"]>;
  /** Where handed-over sockets arrive: the worker's process with its IPC channel. */
  channel: Pick<NodeJS.Process, "on" | "off">;
}

export interface DirectCalls {
  /** Connections served so far (the load report). */
  readonly connections: number;
  /** Ends the streams once their calls are answered, then the connections; waits up to graceMs. Idempotent. */
  close(graceMs: number): Promise<void>;
}

/**
 * How long a handed-over connection serves, ms (5 min, then 30 s for its calls under way): the
 * gateway then connects again, and the supervisor checks the credential again, as it does for a
 * relayed stream of calls at the same age; a rotated secret reaches every connection within it.
 */
const MAX_CONNECTION_AGE_MS = 5 * 60_000;
const MAX_CONNECTION_AGE_GRACE_MS = 30_000;

export function serveDirectCalls(options: DirectCallsOptions): DirectCalls {
  const server = new grpc.Server({
    "grpc.max_receive_message_length": MAX_GRPC_MESSAGE_BYTES,
    "grpc.max_connection_age_ms": MAX_CONNECTION_AGE_MS,
    "grpc.max_connection_age_grace_ms": MAX_CONNECTION_AGE_GRACE_MS,
  });
  const inFlight = new InFlightCalls();
  // The supervisor authorized the connection before handing it over; nothing on it is a credential.
  const serviceOptions = {
    interceptors: [inFlight.interceptor, ...options.interceptors],
    onUnexpectedError: options.onUnexpectedError,
  };
  addService(server, Runner, options.implementation, serviceOptions);
  const streams = addMultiplexedService(server, RunnerCalls, Runner, options.implementation, serviceOptions);
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  let connections = 0;
  let closing: Promise<void> | undefined;
  const receive = (message: unknown, handle: unknown) => {
    if (!(handle instanceof Socket)) return;
    const connection = message as Partial<ConnectionMessage> | null;
    if (closing || connection?.kind !== CONNECTION_MESSAGE) {
      handle.destroy();
      return;
    }
    if (typeof connection.head === "string" && connection.head.length > 0)
      handle.unshift(Buffer.from(connection.head, "base64"));
    connections += 1;
    injector.injectConnection(handle);
  };
  options.channel.on("message", receive);
  return {
    get connections() {
      return connections;
    },
    close(graceMs) {
      closing ??= (async () => {
        options.channel.off("message", receive);
        streams.drain();
        injector.drain(graceMs);
        await inFlight.settled(graceMs);
        injector.destroy();
        server.forceShutdown();
      })();
      return closing;
    },
  };
}
