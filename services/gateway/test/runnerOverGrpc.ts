// A real gRPC server offering the Runner service with the given handlers (the others answer
// UNIMPLEMENTED): gateway tests use it where a language server's answer is beside the point.
import * as grpc from "@grpc/grpc-js";
import { addService, type ServiceImplementation } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";

export interface RunnerOverGrpc {
  readonly address: string;
  close(): void;
}

export async function serveRunnerOverGrpc(
  handlers: Partial<ServiceImplementation<typeof Runner.method>>,
): Promise<RunnerOverGrpc> {
  const server = new grpc.Server();
  addService(server, Runner, handlers as ServiceImplementation<typeof Runner.method>);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { address: `127.0.0.1:${port}`, close: () => server.forceShutdown() };
}
