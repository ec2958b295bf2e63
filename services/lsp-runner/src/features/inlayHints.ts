// Inlay hints: inferred types and parameter names over a range of a file.
import { answerStatus, optionalRange, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const inlayHintsFeature = defineFeature({
  name: "inlay hints",
  capabilities: { textDocument: { inlayHint: {} } },
  cachedMethods: [],
  rpc: (engine) => ({
    inlayHints: rpcHandler(async (request, context) => {
      const answer = await engine.assistance.inlayHints({
        ref: workspaceRef(request.workspace),
        file: request.file,
        range: optionalRange(request.range),
        signal: context.signal,
      });
      return { ...answer, status: answerStatus(answer.status) };
    }),
  }),
});
