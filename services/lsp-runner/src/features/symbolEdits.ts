// SymbolEdit (replace_symbol_body, insert_before_symbol, insert_after_symbol): an edit located by
// a symbol's path in the server's document symbols (the same request as document symbols),
// previewed, or applied through the atomic apply path of ApplyWorkspaceEdit.
import { SymbolEditRequest_Mode } from "@lspmesh/proto";
import type { EditAnswer } from "../engine/answers.js";
import { type SymbolEditMode, symbolEditPreview } from "../engine/symbolEdits.js";
import { isEmptyEdit } from "../engine/workspaceEdits.js";
import { invalidArgument } from "../errors.js";
import { workspaceRef } from "../grpc/protoMapping.js";
import { editWithDelta } from "./editDelta.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

const MODES: Partial<Record<SymbolEditRequest_Mode, SymbolEditMode>> = {
  [SymbolEditRequest_Mode.REPLACE_BODY]: "replace",
  [SymbolEditRequest_Mode.INSERT_BEFORE]: "insertBefore",
  [SymbolEditRequest_Mode.INSERT_AFTER]: "insertAfter",
};

export const symbolEditsFeature = defineFeature({
  name: "symbol edits",
  capabilities: {},
  cachedMethods: [],
  rpc: (engine) => ({
    symbolEdit: rpcHandler(async (request, context) => {
      const ref = workspaceRef(request.workspace);
      const mode = MODES[request.mode];
      if (!mode) throw invalidArgument("give the mode: replace the symbol, insert before it or insert after it");
      const query = { ref, file: request.file, symbolPath: request.symbolPath, mode, text: request.text };
      const compute = async (apply: boolean): Promise<EditAnswer> => {
        const preview = await symbolEditPreview(engine.context, { ...query, signal: context.signal });
        if (!apply || isEmptyEdit(preview.edit)) return preview;
        await engine.editing.applyEdit({ ref, edit: preview.edit });
        return { ...preview, applied: true };
      };
      // DELTA: editWithDelta (features/editDelta.ts) applies the preview's edit between the
      // diagnostics before and after when request.delta asks for them; otherwise compute(apply).
      return editWithDelta(engine, ref, request, compute, context.signal);
    }),
  }),
});
