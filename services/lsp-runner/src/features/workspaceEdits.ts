// Applying a workspace edit the caller gives; the capability says how servers may shape every
// edit they send (renames, code actions, file renames): versioned document changes and file
// create/rename/delete operations.
import { changedFilesOf } from "../engine/changedFiles.js";
import { editAnswer, workspaceEditFrom, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const workspaceEditsFeature = defineFeature({
  name: "workspace edits",
  capabilities: {
    workspace: { workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] } },
  },
  cachedMethods: [],
  rpc: (engine) => ({
    applyWorkspaceEdit: rpcHandler(async (request, context) => {
      const ref = workspaceRef(request.workspace);
      const edit = workspaceEditFrom(request.edit);
      const apply = () => engine.editing.applyEdit({ ref, edit });
      if (!request.delta?.enabled) return editAnswer(await apply());
      const { files, renamed } = changedFilesOf(edit);
      const { result, delta } = await engine.checks.aroundApply(
        ref,
        files,
        request.delta.waitMs,
        apply,
        context.signal,
        renamed,
      );
      return editAnswer(result, delta);
    }),
  }),
});
