// Marks every gRPC call as agent activity while it runs, so that background indexing waits for it.
import type { CallContext, ServiceImplementation } from "@lspmesh/grpc";
import type { Runner } from "@lspmesh/proto";
import type { AgentActivity } from "../symbolIndex/agentActivity.js";

export function withAgentActivity(
  implementation: ServiceImplementation<typeof Runner.method>,
  activity: AgentActivity,
): ServiceImplementation<typeof Runner.method> {
  const tracked: Record<string, unknown> = {};
  for (const [method, handle] of Object.entries(implementation) as Array<
    [string, (request: unknown, context: CallContext) => Promise<unknown>]
  >) {
    tracked[method] = async (request: unknown, context: CallContext) => {
      const end = activity.begin();
      try {
        return await handle(request, context);
      } finally {
        end();
      }
    };
  }
  return tracked as ServiceImplementation<typeof Runner.method>;
}
