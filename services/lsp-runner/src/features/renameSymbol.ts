// Renaming a symbol everywhere the server knows it (prepareRename first, so a position that
// cannot be renamed is refused before any edit is computed).
import type { EditAnswer } from "../engine/answers.js";
import { partialEditRefusal } from "../engine/editing.js";
import { positionTarget, workspaceRef } from "../grpc/protoMapping.js";
import { editWithDelta } from "./editDelta.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const renameSymbolFeature = defineFeature({
  name: "rename symbol",
  capabilities: { textDocument: { rename: { prepareSupport: true } } },
  cachedMethods: [],
  rpc: (engine) => ({
    renameSymbol: rpcHandler(async (request, context) => {
      const ref = workspaceRef(request.workspace);
      const at = positionTarget(request.at);
      return editWithDelta(
        engine,
        ref,
        request,
        async (apply) => {
          const answer = await engine.editing.renameSymbol({
            ref,
            at,
            newName: request.newName,
            apply,
            signal: context.signal,
          });
          if (request.apply && !apply) refusePartialRename(answer);
          return answer;
        },
        context.signal,
      );
    }),
  }),
});

/**
 * With a delta, the rename is applied from its preview (editWithDelta): the rule of an applied
 * rename (EditingQueries.finish) holds there too — one computed from a partial view of the
 * workspace would change only some of the uses, so it is never written.
 */
function refusePartialRename(preview: EditAnswer): void {
  if (preview.status.partial) throw partialEditRefusal(preview.status);
}
