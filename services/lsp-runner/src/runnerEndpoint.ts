// A runner's face to the cluster: the gRPC server (Runner service with the standard health
// service, credentials checked per call; the same calls on streams, lspmesh.v1.RunnerCalls), the
// in-process client of the same service, and the registry entry that names it. Serves whatever
// implementation it is given: a runner core in this process, or the supervisor's routing to tenant
// workers.
import { hostname } from "node:os";
import * as grpc from "@grpc/grpc-js";
import {
  addMultiplexedService,
  addService,
  type CallCredentials,
  createInProcessClient,
  GrpcAuth,
  InFlightCalls,
  type Interceptor,
  MAX_GRPC_MESSAGE_BYTES,
  type ServiceClient,
  type ServiceImplementation,
  serverTracingInterceptor,
} from "@lspmesh/grpc";
import { Runner, RunnerCalls } from "@lspmesh/proto";
import { splitHostPort, tracingEnabled } from "@lspmesh/service-kit";
import { HealthImplementation } from "grpc-health-check";
import type { RunnerEventBus } from "./events/eventBus.js";
import { DEFAULT_HEARTBEAT_MS, RunnerRegistration } from "./events/runnerRegistration.js";
import { callLogInterceptor, unexpectedErrorLog } from "./grpc/callLog.js";
import { publishedBeforeReplyInterceptor } from "./grpc/publishedBeforeReply.js";
import { endpointHandoff, handOver, handoffFields, reclaimBeforeRegistering } from "./handoff/endpointHandoff.js";
import type { Handoff } from "./handoff/handoff.js";
import type { ServedLanguage } from "./runnerCore.js";

export interface RunnerEndpointOptions {
  id: string;
  /** host:port to listen on; port 0 picks a free one. */
  listen: string;
  grpcAuth?: GrpcAuth;
  implementation: ServiceImplementation<typeof Runner.method>;
  bus: RunnerEventBus;
  served: readonly ServedLanguage[];
  /** Language servers running now (the registry's load). */
  load: () => number;
  pool?: string;
  tenants?: readonly string[];
  heartbeatMs?: number;
  advertiseAddress?: string;
  /** Sessions warm here, most recently used first (the registry's `warm`; handoff). */
  warmSessions?: () => string[];
  /** Longest handoff wait, ms (config.ts handoffMs); 0 or absent = no handoff. */
  handoffMs?: number;
  /** The port taking direct worker connections: advertised on the advertised address's host. */
  workerPort?: number;
  log: (entry: Record<string, unknown>) => void;
}

export interface RunnerEndpoint {
  /** host:port actually bound. */
  readonly address: string;
  readonly inProcessClient: ServiceClient<typeof Runner.method>;
  /** Health NOT_SERVING, registry entry removed, calls under way finished (up to graceMs). Idempotent. */
  close(graceMs: number): Promise<void>;
}

export async function startRunnerEndpoint(options: RunnerEndpointOptions): Promise<RunnerEndpoint> {
  const { id, log, served } = options;
  const grpcAuth = options.grpcAuth ?? GrpcAuth.none();
  const server = new grpc.Server({ "grpc.max_receive_message_length": MAX_GRPC_MESSAGE_BYTES });
  const health = new HealthImplementation({ "": "SERVING", "lspmesh.v1.Runner": "SERVING" });
  health.addToServer(server);
  // close() lets the calls under way finish; grpc-js tryShutdown alone would not wait for in-process ones.
  const inFlight = new InFlightCalls();
  // Every Runner call, over the network or in this process, passes these, the first outermost.
  // The span (while tracing is on) continues the caller's trace; in process, the gateway's span.
  const tracing = tracingEnabled() ? [serverTracingInterceptor()] : [];
  const interceptors: Interceptor[] = [
    inFlight.interceptor,
    ...tracing,
    callLogInterceptor(log),
    publishedBeforeReplyInterceptor(options.bus),
  ];
  const onUnexpectedError = unexpectedErrorLog(log);
  const serviceOptions = {
    authorize: (call: CallCredentials) => grpcAuth.authorizes(call),
    interceptors,
    onUnexpectedError,
  };
  addService(server, Runner, options.implementation, serviceOptions);
  // The same calls, many on one stream per gateway (lspmesh.v1.RunnerCalls): credentials checked
  // when the stream opens, then each call through the same interceptors and implementation.
  const streams = addMultiplexedService(server, RunnerCalls, Runner, options.implementation, serviceOptions);
  // Same process, same service, no credentials to check: nothing crosses a process boundary.
  const inProcessClient = createInProcessClient(Runner, options.implementation, { interceptors, onUnexpectedError });
  let advertised = "";
  let handoff: Handoff | undefined;
  const registration = new RunnerRegistration(
    options.bus,
    () => ({
      id,
      address: advertised,
      languages: served.map((language) => language.id),
      extensions: Object.fromEntries(served.map((language) => [language.id, language.extensions])),
      pool: options.pool ?? "default",
      ...(options.tenants ? { tenants: [...options.tenants] } : {}),
      load: options.load(),
      ...(options.workerPort ? { workerAddress: withPort(advertised, options.workerPort) } : {}),
      ...handoffFields(handoff),
    }),
    options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    log,
  );
  handoff = endpointHandoff({
    ...options,
    languages: served.map((language) => language.id),
    client: inProcessClient,
    publish: () => registration.publishNow(),
    budgetMs: options.handoffMs,
  });
  const [host, portText] = splitHostPort(options.listen);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${portText}`, grpcAuth.serverCredentials(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const address = `${host}:${port}`;
  const wildcard = host === "0.0.0.0" || host === "::" || host === "[::]";
  advertised = options.advertiseAddress ?? (wildcard ? `${hostname()}:${port}` : address);
  handoff = await reclaimBeforeRegistering(handoff, health, log);
  await registration.start();
  let closing: Promise<void> | undefined;
  return {
    address,
    inProcessClient,
    close(graceMs) {
      closing ??= (async () => {
        // Still serving while successors warm this runner's sessions (handoff), at most its budget.
        graceMs = Math.max(0, graceMs - (await handOver(handoff, graceMs, log)));
        // Gateways stop routing here first: health checks fail and the registry entry goes.
        health.setStatus("", "NOT_SERVING");
        health.setStatus("lspmesh.v1.Runner", "NOT_SERVING");
        await registration.close();
        // Streams of calls end once their calls under way are answered; tryShutdown waits for them.
        streams.drain();
        const network = shutDown(server, graceMs);
        // New in-process calls are refused (UNAVAILABLE), as the closing server refuses network ones.
        inProcessClient.close();
        await Promise.all([network, inFlight.settled(graceMs)]);
      })();
      return closing;
    },
  };
}

/** Lets the server's calls finish, forcing it down after graceMs. */
function shutDown(server: grpc.Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** host:port with another port. */
function withPort(address: string, port: number): string {
  return `${address.slice(0, address.lastIndexOf(":"))}:${port}`;
}

/** `<hostname>-<pid>`, reduced to the characters a registry key allows. */
export function defaultRunnerId(): string {
  return `${hostname()}-${process.pid}`.replace(/[^A-Za-z0-9_=.-]/g, "-").replace(/^[^A-Za-z0-9]+/, "");
}
