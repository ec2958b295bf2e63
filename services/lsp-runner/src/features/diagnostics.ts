// Diagnostics: pushed (publishDiagnostics) and pulled (textDocument/diagnostic) answers are kept by
// the session itself, so their capabilities are the session's (lsp/session/clientCapabilities.ts).
import { answerStatus, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const diagnosticsFeature = defineFeature({
  name: "diagnostics",
  capabilities: {},
  cachedMethods: [],
  rpc: (engine) => ({
    diagnostics: rpcHandler(async (request, context) => {
      const answer = await engine.diagnostics.diagnostics({
        ref: workspaceRef(request.workspace),
        files: request.files,
        waitMs: request.waitMs,
        signal: context.signal,
        onlyLanguages: request.languages,
      });
      return { ...answer, status: answerStatus(answer.status), epoch: BigInt(answer.epoch) };
    }),
  }),
});
