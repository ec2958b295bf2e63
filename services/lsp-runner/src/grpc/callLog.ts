// One log line per RPC with the gateway's request id (`x-request-id` metadata), so a tool call can
// be followed from the gateway's log into the runner's: debug for answers, info for coded errors,
// error (with the stack) for unexpected failures.
import type { CallContext, Interceptor, ServiceOptions } from "@lspmesh/grpc";
import { GrpcStatusError } from "@lspmesh/grpc";
import { ERROR_CODE_TRAILER, REQUEST_ID_METADATA } from "@lspmesh/proto";

export type RunnerLog = (entry: Record<string, unknown>) => void;

/** The request id a call carries; undefined when the caller sent none (or an oversized one). */
export function requestIdOf(context: Pick<CallContext, "metadata">): string | undefined {
  const [value] = context.metadata.get(REQUEST_ID_METADATA);
  // Only a short printable token goes into logs: the header comes from outside.
  return typeof value === "string" && /^[\w.:-]{1,128}$/.test(value) ? value : undefined;
}

/** Logs each call's outcome and duration under the method's name in code (findDefinition). */
export function callLogInterceptor(log: RunnerLog): Interceptor {
  return (next) => async (call) => {
    const started = performance.now();
    const method = call.method.localName;
    const requestId = requestIdOf(call.context);
    try {
      const answer = await next(call);
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

/** Logs a failure that is not a GrpcStatusError (the caller sees INTERNAL), with its stack. */
export function unexpectedErrorLog(log: RunnerLog): NonNullable<ServiceOptions["onUnexpectedError"]> {
  return (method, error, context) =>
    log({
      level: "error",
      msg: "unexpected error",
      method,
      requestId: requestIdOf(context),
      error: String((error as Error)?.stack ?? error),
    });
}
