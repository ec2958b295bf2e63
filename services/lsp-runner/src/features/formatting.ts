// Formatting a whole file, with the caller's tab size or the server's defaults.
import { workspaceRef } from "../grpc/protoMapping.js";
import { editWithDelta } from "./editDelta.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const formattingFeature = defineFeature({
  name: "formatting",
  capabilities: { textDocument: { formatting: {} } },
  cachedMethods: [],
  rpc: (engine) => ({
    formatDocument: rpcHandler(async (request, context) => {
      const options =
        request.tabSize > 0 ? { tabSize: request.tabSize, insertSpaces: request.insertSpaces } : undefined;
      const ref = workspaceRef(request.workspace);
      return editWithDelta(
        engine,
        ref,
        request,
        (apply) => engine.editing.format({ ref, file: request.file, options, apply, signal: context.signal }),
        context.signal,
      );
    }),
  }),
});
