// The scope an MCP request needs, read from its JSON-RPC messages before any serving path runs:
// a caller without it must get an HTTP 403 with a bearer challenge, and a path that streams has
// sent its 200 before a tool runs. The tool pipeline checks the same decision again for transports
// without HTTP (stdio), through auth/scopeDecision.ts, with the same answer.
import type { Scope } from "../../auth/principal.js";
import { missingScope, scopeFor } from "../../auth/scopeDecision.js";
import { GATEWAY_TOOLS } from "../createMcpServer.js";
import type { AdmittedMcpRequest } from "./admittedRequest.js";

/** lsp:write for a tools/call whose arguments make it write files, lsp:read for everything else. */
export function requiredScope(message: unknown): Scope {
  const request = message as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
  if (request?.method !== "tools/call") return "lsp:read";
  const tool = GATEWAY_TOOLS.find((candidate) => candidate.name === request.params?.name);
  if (!tool) return "lsp:read";
  try {
    return scopeFor(tool.writes(request.params?.arguments));
  } catch {
    // Invalid arguments: the tool answers INVALID_ARGUMENT itself.
    return "lsp:read";
  }
}

/** The scope the caller lacks for this request (the first one of a batch); undefined when it may be served. */
export function scopeMissingFor(request: AdmittedMcpRequest, readOnly: boolean): Scope | undefined {
  const { principal, parsed } = request;
  // GET, DELETE and a body that is not JSON (the SDK answers a parse error) read at most.
  if (request.req.method !== "POST" || parsed === undefined) return missingScope(principal, "lsp:read");
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    const missing = missingScope(principal, neededBy(message, readOnly));
    if (missing) return missing;
  }
  return undefined;
}

/** Read-only serving has no writing tool: a call naming one is answered "not found" by MCP. */
function neededBy(message: unknown, readOnly: boolean): Scope {
  return readOnly ? "lsp:read" : requiredScope(message);
}
