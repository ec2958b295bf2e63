// Completions at a position: never remembered (the same position completes differently as the
// user types, and resolve fills items in on demand).
import { answerStatus, positionTarget, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const completionsFeature = defineFeature({
  name: "completions",
  capabilities: {
    textDocument: {
      completion: { completionItem: { snippetSupport: false, documentationFormat: ["markdown", "plaintext"] } },
    },
  },
  cachedMethods: [],
  rpc: (engine) => ({
    completions: rpcHandler(async (request, context) => {
      const answer = await engine.assistance.completion({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        limit: request.limit,
        resolve: request.resolve,
        signal: context.signal,
      });
      return { ...answer, status: answerStatus(answer.status) };
    }),
  }),
});
