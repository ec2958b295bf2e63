// A router over a fixed list of runner addresses (single machine, or a static deployment).

import type { GrpcAuth } from "@lspmesh/grpc";
import { StaticRunnerDirectory } from "./runnerDirectory.js";
import { HrwRunnerRouter, type RunnerClient } from "./runnerRouter.js";

export class StaticRunnerRouter extends HrwRunnerRouter {
  constructor(
    addresses: string | readonly string[],
    grpcAuth?: GrpcAuth,
    /** Runner clients by address to use instead of gRPC channels (a runner in this process). */
    inProcess?: ReadonlyMap<string, RunnerClient>,
    /** How calls travel to the runners (default "stream": one stream of calls per runner). */
    transport?: "stream" | "unary",
  ) {
    super(new StaticRunnerDirectory(typeof addresses === "string" ? [addresses] : addresses), {
      grpcAuth,
      ...(transport ? { transport } : {}),
      ...(inProcess ? { connect: (entry) => inProcess.get(entry.address) } : {}),
    });
  }
}
