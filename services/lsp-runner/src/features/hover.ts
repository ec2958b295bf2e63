// Hover: the type and documentation at a position, as markdown.
import { answerStatus, positionTarget, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const hoverFeature = defineFeature({
  name: "hover",
  capabilities: { textDocument: { hover: { contentFormat: ["markdown", "plaintext"] } } },
  cachedMethods: ["textDocument/hover"],
  rpc: (engine) => ({
    hover: rpcHandler(async (request, context) => {
      const answer = await engine.navigation.hover({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        signal: context.signal,
      });
      return { status: answerStatus(answer.status), contents: answer.contents, range: answer.range };
    }),
  }),
});
