// check_edit: a proposed edit laid over the warm servers' documents as unsaved content, answered
// with what it changes in the diagnostics (EditCheck); nothing is written.
import { answerStatus, diagnosticsDelta, workspaceEditFrom, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const checkEditFeature = defineFeature({
  name: "check edit",
  capabilities: {},
  cachedMethods: [],
  rpc: (engine) => ({
    checkEdit: rpcHandler(async (request, context) => {
      const change = request.change;
      const answer = await engine.checks.check({
        ref: workspaceRef(request.workspace),
        edit: change.case === "edit" ? workspaceEditFrom(change.value) : undefined,
        patch: change.case === "patch" ? change.value : undefined,
        waitMs: request.waitMs,
        skipImporters: request.skipImporters,
        signal: context.signal,
      });
      return { status: answerStatus(answer.status), delta: diagnosticsDelta(answer.delta) };
    }),
  }),
});
