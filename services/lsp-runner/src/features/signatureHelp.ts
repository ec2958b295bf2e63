// Signature help: the signatures of the call a position is inside, with the active parameter.
import { answerStatus, positionTarget, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const signatureHelpFeature = defineFeature({
  name: "signature help",
  capabilities: {
    textDocument: { signatureHelp: { signatureInformation: { documentationFormat: ["markdown", "plaintext"] } } },
  },
  cachedMethods: ["textDocument/signatureHelp"],
  rpc: (engine) => ({
    signatureHelp: rpcHandler(async (request, context) => {
      const answer = await engine.assistance.signatureHelp({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        signal: context.signal,
      });
      return { ...answer, status: answerStatus(answer.status) };
    }),
  }),
});
