// Call and type hierarchies: prepare at a position, then callers/callees or subtypes/supertypes to a depth.
import { HierarchyRequest_Direction } from "@lspmesh/proto";
import type { HierarchyAnswer } from "../engine/answers.js";
import { invalidArgument } from "../errors.js";
import { answerStatus, hierarchyNode, positionTarget, workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

/** INCOMING means callers / subtypes, OUTGOING callees / supertypes (runner.proto). */
function direction<I extends string, O extends string>(
  value: HierarchyRequest_Direction,
  incoming: I,
  outgoing: O,
): I | O {
  if (value === HierarchyRequest_Direction.INCOMING) return incoming;
  if (value === HierarchyRequest_Direction.OUTGOING) return outgoing;
  throw invalidArgument(`give a direction: INCOMING (${incoming}) or OUTGOING (${outgoing})`);
}

function hierarchyAnswer(answer: HierarchyAnswer) {
  return { status: answerStatus(answer.status), root: answer.root ? hierarchyNode(answer.root) : undefined };
}

export const callHierarchyFeature = defineFeature({
  name: "call hierarchy",
  capabilities: { textDocument: { callHierarchy: {} } },
  cachedMethods: ["textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls", "callHierarchy/outgoingCalls"],
  rpc: (engine) => ({
    callHierarchy: rpcHandler(async (request, context) => {
      const answer = await engine.hierarchies.callHierarchy({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        direction: direction(request.direction, "incoming", "outgoing"),
        depth: request.depth,
        signal: context.signal,
      });
      return hierarchyAnswer(answer);
    }),
  }),
});

export const typeHierarchyFeature = defineFeature({
  name: "type hierarchy",
  capabilities: { textDocument: { typeHierarchy: {} } },
  cachedMethods: ["textDocument/prepareTypeHierarchy", "typeHierarchy/supertypes", "typeHierarchy/subtypes"],
  rpc: (engine) => ({
    typeHierarchy: rpcHandler(async (request, context) => {
      const answer = await engine.hierarchies.typeHierarchy({
        ref: workspaceRef(request.workspace),
        at: positionTarget(request.at),
        direction: direction(request.direction, "subtypes", "supertypes"),
        depth: request.depth,
        signal: context.signal,
      });
      return hierarchyAnswer(answer);
    }),
  }),
});
