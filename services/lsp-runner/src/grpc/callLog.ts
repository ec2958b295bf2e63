// One log line per RPC with the gateway's request id (`x-request-id` metadata), so a tool call can
// be followed from the gateway's log into the runner's: debug for answers, info for coded errors.
import type { CallContext, ServiceImplementation } from "@lspmesh/grpc";
import { GrpcStatusError } from "@lspmesh/grpc";
import { ERROR_CODE_TRAILER, REQUEST_ID_METADATA, type Runner } from "@lspmesh/proto";

export type RunnerLog = (entry: Record<string, unknown>) => void;

/** The request id a call carries; undefined when the caller sent none (or an oversized one). */
export function requestIdOf(context: Pick<CallContext, "metadata">): string | undefined {
  const [value] = context.metadata.get(REQUEST_ID_METADATA);
  // Only a short printable token goes into logs: the header comes from outside.
  return typeof value === "string" && /^[\w.:-]{1,128}$/.test(value) ? value : undefined;
}

export function withCallLog(
  implementation: ServiceImplementation<typeof Runner.method>,
  log: RunnerLog,
): ServiceImplementation<typeof Runner.method> {
  const logged: Record<string, unknown> = {};
  for (const [method, handle] of Object.entries(implementation) as Array<
    [string, (request: unknown, context: CallContext) => Promise<unknown>]
  >) {
    logged[method] = async (request: unknown, context: CallContext) => {
      const started = performance.now();
      const requestId = requestIdOf(context);
      try {
        const answer = await handle(request, context);
        log({ level: "debug", msg: "rpc", method, requestId, durationMs: Math.round(performance.now() - started) });
        return answer;
      } catch (error) {
        if (error instanceof GrpcStatusError) {
          const code = error.trailers[ERROR_CODE_TRAILER];
          log({
            level: "info",
            msg: "rpc",
            method,
            requestId,
            durationMs: Math.round(performance.now() - started),
            code,
          });
        }
        throw error;
      }
    };
  }
  return logged as ServiceImplementation<typeof Runner.method>;
}
