// A router over a fixed list of runner addresses (single machine, or a static deployment).

import type { GrpcAuth } from "@lspmesh/grpc";
import { StaticRunnerDirectory } from "./runnerDirectory.js";
import { HrwRunnerRouter } from "./runnerRouter.js";

export class StaticRunnerRouter extends HrwRunnerRouter {
  constructor(addresses: string | readonly string[], grpcAuth?: GrpcAuth) {
    super(new StaticRunnerDirectory(typeof addresses === "string" ? [addresses] : addresses), { grpcAuth });
  }
}
