// The symbols a file declares, as a tree (servers that can only answer a flat list still do).
import { answerStatus, documentSymbol, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler, SYMBOL_KINDS } from "./runnerFeature.js";

export const documentSymbolsFeature = defineFeature({
  name: "document symbols",
  capabilities: {
    textDocument: { documentSymbol: { hierarchicalDocumentSymbolSupport: true, symbolKind: SYMBOL_KINDS } },
  },
  cachedMethods: ["textDocument/documentSymbol"],
  rpc: (engine) => ({
    documentSymbols: rpcHandler(async (request, context) => {
      const answer = await engine.navigation.documentSymbols({
        ref: workspaceRef(request.workspace),
        file: request.file,
        signal: context.signal,
      });
      return { status: answerStatus(answer.status), symbols: answer.symbols.map(documentSymbol) };
    }),
  }),
});
