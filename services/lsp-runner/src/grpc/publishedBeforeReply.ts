// Calls that change what language servers know (edits, restarts) reply only once the epoch
// announcements they caused reached NATS (RunnerEventBus.flushPublished): a gateway that flushes
// its own connection before serving a remembered answer has then heard of every change its
// caller saw completed, even through another gateway.
import type { Interceptor } from "@lspmesh/grpc";
import type { RunnerEventBus } from "../events/eventBus.js";

/** The Runner methods that may change files or servers (their local names). */
export const CHANGING_METHODS: ReadonlySet<string> = new Set([
  "renameSymbol",
  "renameFile",
  "applyWorkspaceEdit",
  "formatDocument",
  "symbolEdit",
  "restartServer",
  "checkEdit",
]);

export function publishedBeforeReplyInterceptor(bus: Pick<RunnerEventBus, "flushPublished">): Interceptor {
  return (next) => async (call) => {
    if (!CHANGING_METHODS.has(call.method.localName)) return next(call);
    try {
      return await next(call);
    } finally {
      // Announcements are published a microtask after the change; this runs after them.
      await bus.flushPublished();
    }
  };
}
