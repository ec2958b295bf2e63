// What an admin API change writes: the same change planning `lspmesh admin` runs (controlPlaneChanges.ts),
// called the way the CLI calls it, plus the one refusal only a caller over HTTP needs.
import { controlKeys } from "@lspmesh/events";
import { ADMIN_SCOPE, type Principal } from "../auth/principal.js";
import { AdminRefusal } from "./adminAnswer.js";
import type { AdminWrite } from "./adminRequest.js";
import {
  applyFile,
  type ControlChange,
  type ControlValues,
  keyAdd,
  keyRemove,
  tenantPut,
  tenantRemove,
  workspacePut,
  workspaceRemove,
} from "./controlPlaneChanges.js";

/** The changes a request makes to the bucket as it is now; a new key's token too. Throws AdminError. */
export function planOf(request: AdminWrite, current: ControlValues): { changes: ControlChange[]; token?: string } {
  switch (request.kind) {
    case "tenants.put":
      return { changes: tenantPut(current, request.tenant, request.limits, request.workspacePattern) };
    case "tenants.remove":
      return { changes: tenantRemove(current, request.tenant) };
    case "workspaces.put":
      return {
        changes: workspacePut(current, request.tenant, request.workspace, request.languages, {
          create: request.create === true,
          ...(request.idleTtlSeconds ? { idleTtlSeconds: request.idleTtlSeconds } : {}),
        }),
      };
    case "workspaces.remove":
      return {
        changes: workspaceRemove(current, request.tenant, request.workspace, {
          removeFolder: request.removeFolder === true,
        }),
      };
    case "keys.add":
      return keyAdd(current, request.tenant, request.id, request.scopes, request.workspaces);
    case "keys.remove":
      return { changes: keyRemove(current, request.tenant, request.id) };
    case "apply":
      return { changes: applyFile(current, request.file, "the apply request") };
  }
}

/**
 * Refuses changes that delete the API key the caller is using, or take its admin scope away (a
 * tenant removed, an apply file that leaves it out): the next request would be locked out, and
 * only a NATS admin identity (`lspmesh admin`) could repair it.
 */
export function refuseLockout(changes: readonly ControlChange[], caller: Principal): void {
  const own = callerKey(caller);
  const change = own ? changes.find((candidate) => candidate.key === own) : undefined;
  if (!change || keepsAdminScope(change.value)) return;
  throw new AdminRefusal(
    409,
    "locks_out_caller",
    `this change ${change.value === undefined ? "deletes" : "takes lspmesh:admin from"} the key you are calling with (${own}); make it with another admin key, or keep that key${change.value === undefined ? " (and its tenant)" : ""} as it is`,
  );
}

/** The bucket key of the control-plane API key a caller authenticated with (subject `key:<tenant>/<id>`). */
function callerKey(caller: Principal): string | undefined {
  const match = /^key:([^/]+)\/([^/]+)$/.exec(caller.subject);
  return match ? controlKeys.apiKey(match[1]!, match[2]!) : undefined;
}

function keepsAdminScope(value: string | undefined): boolean {
  if (value === undefined) return false;
  try {
    const scopes = (JSON.parse(value) as { scopes?: unknown }).scopes;
    return Array.isArray(scopes) && scopes.includes(ADMIN_SCOPE);
  } catch {
    return false;
  }
}
