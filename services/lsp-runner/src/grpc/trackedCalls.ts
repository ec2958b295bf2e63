// Marks every gRPC call as agent activity while it runs, so that background indexing waits for it.
import { type Interceptor, interceptImplementation, type ServiceImplementation } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import type { AgentActivity } from "../symbolIndex/agentActivity.js";

/** Counts a call as agent activity from its start to its end, answered or failed. */
export function agentActivityInterceptor(activity: AgentActivity): Interceptor {
  return (next) => async (call) => {
    const end = activity.begin();
    try {
      return await next(call);
    } finally {
      end();
    }
  };
}

/**
 * The implementation with every call counted as agent activity. Applied to the implementation
 * itself, not on a server: a tenant worker calls it with no server in between.
 */
export function withAgentActivity(
  implementation: ServiceImplementation<typeof Runner.method>,
  activity: AgentActivity,
): ServiceImplementation<typeof Runner.method> {
  return interceptImplementation(Runner, implementation, [agentActivityInterceptor(activity)]);
}
