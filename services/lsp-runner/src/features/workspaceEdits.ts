// Applying a workspace edit the caller gives; the capability says how servers may shape every
// edit they send (renames, code actions, file renames): versioned document changes and file
// create/rename/delete operations.
import { editAnswer, workspaceEditFrom, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const workspaceEditsFeature = defineFeature({
  name: "workspace edits",
  capabilities: {
    workspace: { workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] } },
  },
  cachedMethods: [],
  rpc: (engine) => ({
    applyWorkspaceEdit: rpcHandler(async (request) => {
      const answer = await engine.editing.applyEdit({
        ref: workspaceRef(request.workspace),
        edit: workspaceEditFrom(request.edit),
      });
      return editAnswer(answer);
    }),
  }),
});
