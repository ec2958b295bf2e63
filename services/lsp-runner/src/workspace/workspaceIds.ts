import { ID_PATTERN, ID_RULE } from "@lspmesh/proto";
import { invalidArgument } from "../errors.js";

export function assertWorkspaceId(kind: "tenant" | "workspace", id: string): void {
  if (!ID_PATTERN.test(id)) {
    throw invalidArgument(`invalid ${kind} id '${id.slice(0, 70)}': ${ID_RULE}`);
  }
}
