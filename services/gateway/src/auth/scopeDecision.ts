// The one place that decides which scope a call needs and whether a caller has it. The HTTP layer
// asks before MCP parsing (to answer 403 with a bearer challenge); the tool pipeline asks again for
// transports without HTTP (stdio), with the same answer.
import { hasScope, type Principal, type Scope } from "./principal.js";

/** lsp:write when the call's arguments make it write files, lsp:read otherwise. */
export function scopeFor(writes: boolean): Scope {
  return writes ? "lsp:write" : "lsp:read";
}

/** The scope `principal` lacks for a call that needs `needed`; undefined when it may go ahead. */
export function missingScope(principal: Principal, needed: Scope): Scope | undefined {
  return hasScope(principal, needed) ? undefined : needed;
}
