// Asks a runner directly whether it serves: the standard gRPC health service (grpc.health.v1),
// which a runner turns NOT_SERVING as it drains. Used while the registry cannot be read (NATS
// down): the last known runners keep being routed to as long as they say they serve.
import * as grpc from "@grpc/grpc-js";
import { GrpcAuth } from "@lspmesh/grpc";
import { service as healthService } from "grpc-health-check";

/** The service name runners report for their Runner service. */
const RUNNER_SERVICE = "lspmesh.v1.Runner";

export interface RunnerHealth {
  /** True when the runner at host:port answers SERVING within timeoutMs. */
  serving(address: string, timeoutMs: number): Promise<boolean>;
  /** Closes the clients. Idempotent. */
  close(): void;
}

type HealthClient = grpc.Client & {
  check(
    request: { service: string },
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null, response?: { status: string | number }) => void,
  ): void;
};

const HealthClientConstructor = grpc.makeClientConstructor(
  healthService as unknown as grpc.ServiceDefinition,
  "Health",
) as unknown as new (
  address: string,
  credentials: grpc.ChannelCredentials,
) => HealthClient;

export class GrpcRunnerHealth implements RunnerHealth {
  private readonly clients = new Map<string, HealthClient>();

  /** The health service needs no secret, but a runner on mTLS speaks only TLS. */
  constructor(private readonly auth: GrpcAuth = GrpcAuth.none()) {}

  serving(address: string, timeoutMs: number): Promise<boolean> {
    let client = this.clients.get(address);
    if (!client) {
      client = new HealthClientConstructor(address, this.auth.channelCredentials());
      this.clients.set(address, client);
    }
    const checking = client;
    return new Promise((resolve) => {
      checking.check({ service: RUNNER_SERVICE }, { deadline: Date.now() + timeoutMs }, (error, response) =>
        resolve(!error && (response?.status === "SERVING" || response?.status === 1)),
      );
    });
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}
