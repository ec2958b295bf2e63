// Go to definition, type definition and implementations: the three requests answer the same
// shapes (Location, Location[], LocationLink[] or null), converted by NavigationQueries.locations.
import type { PositionRequest } from "@lspmesh/proto";
import type { QueryEngine } from "../engine/queryEngine.js";
import { answerStatus, positionTarget, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

function locationsOf(engine: QueryEngine, kind: "definition" | "typeDefinition" | "implementation") {
  return rpcHandler(async (request: PositionRequest, context) => {
    const answer = await engine.navigation.locations({
      kind,
      ref: workspaceRef(request.workspace),
      at: positionTarget(request.at),
      signal: context.signal,
    });
    return { status: answerStatus(answer.status), locations: answer.locations };
  });
}

export const locationsFeature = defineFeature({
  name: "definitions, type definitions and implementations",
  capabilities: {
    textDocument: {
      definition: { linkSupport: true },
      typeDefinition: { linkSupport: true },
      implementation: { linkSupport: true },
    },
  },
  cachedMethods: [
    "textDocument/definition",
    "textDocument/declaration",
    "textDocument/typeDefinition",
    "textDocument/implementation",
  ],
  rpc: (engine) => ({
    findDefinition: locationsOf(engine, "definition"),
    findTypeDefinition: locationsOf(engine, "typeDefinition"),
    findImplementations: locationsOf(engine, "implementation"),
  }),
});
