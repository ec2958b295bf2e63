// Which runner answers for a workspace. For now one configured address; HRW routing over the
// NATS registry (DESIGN.md 2) will be another RunnerRouter.
import { createClient, Runner, type ServiceClient } from "@lspmesh/proto";
import { GatewayError } from "./errors.js";

/** A typed, promise-based client of the lspmesh.v1.Runner service. */
export type RunnerClient = ServiceClient<typeof Runner.method>;

export interface RunnerRouter {
  /** The client to call for this workspace. Throws a GatewayError when no runner can serve it. */
  clientFor(tenant: string, workspace: string): RunnerClient;
  /** Releases channels. Idempotent. */
  close(): void;
}

/** Every workspace goes to one runner at a fixed address ("host:port"), over one channel. */
export class StaticRunnerRouter implements RunnerRouter {
  private client: RunnerClient | undefined;

  constructor(readonly address: string) {
    // grpc-js connects lazily, so constructing does not need the runner to be up yet.
    this.client = createClient(Runner, address);
  }

  clientFor(): RunnerClient {
    if (!this.client) throw new GatewayError("UNAVAILABLE", "the gateway is shutting down; try again shortly");
    return this.client;
  }

  close(): void {
    this.client?.close();
    this.client = undefined;
  }
}
