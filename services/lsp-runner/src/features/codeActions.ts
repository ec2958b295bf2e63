// Code actions: quick fixes and refactorings over a range, one of them applied when asked by title.
import { answerStatus, codeAction, optionalRange, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const codeActionsFeature = defineFeature({
  name: "code actions",
  capabilities: {
    textDocument: {
      codeAction: {
        codeActionLiteralSupport: {
          codeActionKind: { valueSet: ["", "quickfix", "refactor", "refactor.extract", "refactor.rewrite", "source"] },
        },
        resolveSupport: { properties: ["edit"] },
      },
    },
  },
  cachedMethods: [],
  rpc: (engine) => ({
    codeActions: rpcHandler(async (request, context) => {
      const answer = await engine.editing.codeActions({
        ref: workspaceRef(request.workspace),
        file: request.file,
        range: optionalRange(request.range),
        kinds: request.kinds,
        applyTitle: request.applyTitle,
        signal: context.signal,
      });
      return { status: answerStatus(answer.status), actions: answer.actions.map(codeAction), applied: answer.applied };
    }),
  }),
});
