// Renaming a file with the import updates the server computes (willRenameFiles), then telling it
// the rename happened (didRenameFiles).
import { editAnswer, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const renameFileFeature = defineFeature({
  name: "rename file",
  capabilities: { workspace: { fileOperations: { willRename: true, didRename: true } } },
  cachedMethods: [],
  rpc: (engine) => ({
    renameFile: rpcHandler(async (request, context) => {
      const answer = await engine.editing.renameFile({
        ref: workspaceRef(request.workspace),
        file: request.file,
        newFile: request.newFile,
        apply: request.apply,
        signal: context.signal,
      });
      return editAnswer(answer);
    }),
  }),
});
