// Find references: every project of the workspace loaded first (NavigationQueries.references),
// then paged in the server's order.
import { answerStatus, positionTarget, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const referencesFeature = defineFeature({
  name: "references",
  capabilities: { textDocument: { references: {} } },
  cachedMethods: ["textDocument/references"],
  rpc: (engine) => ({
    findReferences: rpcHandler(async (request, context) => {
      const answer = await engine.navigation.references({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        includeDeclaration: request.includeDeclaration,
        limit: request.limit,
        offset: request.offset,
        signal: context.signal,
      });
      return { status: answerStatus(answer.status), locations: answer.locations, total: answer.total };
    }),
  }),
});
