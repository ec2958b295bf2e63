// Workspace symbols: each language's server asked through one anchor file, answers ranked together.
import { answerStatus, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler, SYMBOL_KINDS } from "./runnerFeature.js";

export const workspaceSymbolsFeature = defineFeature({
  name: "workspace symbols",
  capabilities: { workspace: { symbol: { dynamicRegistration: false, symbolKind: SYMBOL_KINDS } } },
  cachedMethods: ["workspace/symbol"],
  rpc: (engine) => ({
    workspaceSymbols: rpcHandler(async (request, context) => {
      const answer = await engine.navigation.workspaceSymbols({
        ref: workspaceRef(request.workspace),
        query: request.query,
        languageId: request.language,
        limit: request.limit,
        signal: context.signal,
        onlyLanguages: request.languages,
      });
      return { ...answer, status: answerStatus(answer.status) };
    }),
  }),
});
