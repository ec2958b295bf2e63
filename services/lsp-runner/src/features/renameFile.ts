// Renaming a file with the import updates the server computes (willRenameFiles), then telling it
// the rename happened (didRenameFiles). With a delta, the preview's edit is applied (its content
// hashes refuse a file changed meanwhile) and the renamed file compared under its old and new path.
import { changedFilesOf } from "../engine/changedFiles.js";
import { editAnswer, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const renameFileFeature = defineFeature({
  name: "rename file",
  capabilities: { workspace: { fileOperations: { willRename: true, didRename: true } } },
  cachedMethods: [],
  rpc: (engine) => ({
    renameFile: rpcHandler(async (request, context) => {
      const ref = workspaceRef(request.workspace);
      const rename = (apply: boolean) =>
        engine.editing.renameFile({
          ref,
          file: request.file,
          newFile: request.newFile,
          apply,
          signal: context.signal,
        });
      if (!request.apply || !request.delta?.enabled) return editAnswer(await rename(request.apply));
      const preview = await rename(false);
      const { files, renamed } = changedFilesOf(preview.edit);
      const { result, delta } = await engine.checks.aroundApply(
        ref,
        files,
        request.delta.waitMs,
        () => engine.editing.applyEdit({ ref, edit: preview.edit }),
        context.signal,
        renamed,
      );
      return editAnswer({ ...preview, applied: result.applied }, delta);
    }),
  }),
});
