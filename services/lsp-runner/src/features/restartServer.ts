// RestartServer: a workspace's server of one language stopped and started again (a requested
// restart: counted, never a failure), answered once the new one is ready or the wait is over.
import { DEFAULT_RESTART_WAIT_MS, restartServer } from "../engine/serverRestart.js";
import { answerStatus, workspaceRef } from "../grpc/protoMapping.js";
import { ANSWER_MARGIN_MS } from "../lsp/session/requestDeadline.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const restartServerFeature = defineFeature({
  name: "restart server",
  capabilities: {},
  cachedMethods: [],
  rpc: (engine) => ({
    restartServer: rpcHandler(async (request, context) => {
      // wait_ms counts from the request's arrival, and the answer still reaches a caller whose
      // deadline is nearer.
      const waitMs = request.waitMs || DEFAULT_RESTART_WAIT_MS;
      const readyBy = Date.now() + Math.min(waitMs, context.deadlineMs - ANSWER_MARGIN_MS);
      const answer = await restartServer(engine.context, {
        ref: workspaceRef(request.workspace),
        languageId: request.language,
        readyBy,
        signal: context.signal,
      });
      return { status: answerStatus(answer.status), wasRunning: answer.wasRunning, restarts: answer.restarts };
    }),
  }),
});
