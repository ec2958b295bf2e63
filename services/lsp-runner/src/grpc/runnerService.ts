// The runner's gRPC table: every LSP feature's handlers (features/index.ts) plus what is about
// the runner itself (Describe, WorkspaceStatus). Errors cross the boundary through
// grpcErrorFromRunner only (rpcHandler).
import type { ServiceImplementation } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import type { QueryEngine } from "../engine/queryEngine.js";
import { featureHandlers } from "../features/index.js";
import { rpcHandler } from "../features/runnerFeature.js";
import { serverState, workspaceRef } from "./protoMapping.js";

/** What Describe answers: this runner's id and the languages (with extensions) it serves. */
export interface RunnerDescriptionFields {
  readonly runnerId: string;
  readonly languages: ReadonlyArray<{ readonly id: string; readonly extensions: readonly string[] }>;
}

export function runnerService(
  engine: QueryEngine,
  description: RunnerDescriptionFields,
): ServiceImplementation<typeof Runner.method> {
  const features = featureHandlers(engine);
  const table = {
    ...features,
    describe: async () => ({
      runnerId: description.runnerId,
      languages: description.languages.map((language) => ({ ...language, extensions: [...language.extensions] })),
    }),
    workspaceStatus: rpcHandler(async (request: { workspace?: Parameters<typeof workspaceRef>[0] }) => {
      const languages = await engine.status.workspaceStatus(workspaceRef(request.workspace));
      return { languages: languages.map((l) => ({ ...l, state: serverState(l.state) })) };
    }),
  };
  return completeTable(table);
}

/** The table, once every method of the service has a handler (a feature left out of the list fails at start). */
function completeTable(
  table: Partial<ServiceImplementation<typeof Runner.method>>,
): ServiceImplementation<typeof Runner.method> {
  const missing = Runner.methods.filter((method) => !(method.localName in table)).map((method) => method.name);
  if (missing.length > 0)
    throw new Error(`no handler for the runner's gRPC ${missing.join(", ")}: add its feature to features/index.ts`);
  return table as ServiceImplementation<typeof Runner.method>;
}
