// Renaming a symbol everywhere the server knows it (prepareRename first, so a position that
// cannot be renamed is refused before any edit is computed).
import { editAnswer, positionTarget, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const renameSymbolFeature = defineFeature({
  name: "rename symbol",
  capabilities: { textDocument: { rename: { prepareSupport: true } } },
  cachedMethods: [],
  rpc: (engine) => ({
    renameSymbol: rpcHandler(async (request, context) => {
      const answer = await engine.editing.renameSymbol({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        newName: request.newName,
        apply: request.apply,
        signal: context.signal,
      });
      return editAnswer(answer);
    }),
  }),
});
