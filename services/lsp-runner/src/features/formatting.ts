// Formatting a whole file, with the caller's tab size or the server's defaults.
import { editAnswer, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const formattingFeature = defineFeature({
  name: "formatting",
  capabilities: { textDocument: { formatting: {} } },
  cachedMethods: [],
  rpc: (engine) => ({
    formatDocument: rpcHandler(async (request, context) => {
      const options =
        request.tabSize > 0 ? { tabSize: request.tabSize, insertSpaces: request.insertSpaces } : undefined;
      const answer = await engine.editing.format({
        ref: workspaceRef(request.workspace),
        file: request.file,
        options,
        apply: request.apply,
        signal: context.signal,
      });
      return editAnswer(answer);
    }),
  }),
});
