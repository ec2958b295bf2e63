// Engine answers ⇄ lspmesh.v1 messages. Positions already are lspmesh positions on both sides.

import type { MessageInitShape } from "@bufbuild/protobuf";
import type * as pb from "@lspmesh/proto";
import { ServerState } from "@lspmesh/proto";
import type * as engine from "../engine/answers.js";
import { invalidArgument } from "../errors.js";

const STATE: Record<engine.ServerStateName, ServerState> = {
  starting: ServerState.STARTING,
  indexing: ServerState.INDEXING,
  ready: ServerState.READY,
  degraded: ServerState.DEGRADED,
  failed: ServerState.FAILED,
};

export function workspaceRef(ref: pb.WorkspaceRef | undefined): engine.WorkspaceRef {
  if (!ref?.tenant || !ref.workspace) throw invalidArgument("the request names no tenant and workspace");
  return { tenant: ref.tenant, workspace: ref.workspace };
}

export function positionTarget(spec: pb.PositionSpec | undefined): engine.PositionTarget {
  if (!spec) throw invalidArgument("the request names no position");
  switch (spec.target.case) {
    case "position":
      return { file: spec.file, position: { line: spec.target.value.line, column: spec.target.value.column } };
    case "symbol": {
      const { name, lineHint, occurrence } = spec.target.value;
      return { file: spec.file, symbol: { name, lineHint, occurrence } };
    }
    default:
      throw invalidArgument("give 'line' and 'column', or 'symbol'");
  }
}

export function answerStatus(status: engine.AnswerStatus): MessageInitShape<typeof pb.AnswerStatusSchema> {
  return { ...status, state: STATE[status.state] };
}

export function serverState(state: engine.ServerStateName): ServerState {
  return STATE[state];
}

export function documentSymbol(symbol: engine.DocumentSymbol): MessageInitShape<typeof pb.DocumentSymbolSchema> {
  return { ...symbol, children: symbol.children.map(documentSymbol) };
}
