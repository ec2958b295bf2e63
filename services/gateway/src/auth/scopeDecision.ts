// The one place that decides which scope a call needs and whether a caller has it. MCP serving
// asks before a request is served (a refusal is an HTTP 403 with a bearer challenge); the tool
// pipeline asks again for transports without HTTP (stdio), with the same answer.
import { hasScope, type Principal, type Scope } from "./principal.js";

/** lsp:write when the call's arguments make it write files, lsp:read otherwise. */
export function scopeFor(writes: boolean): Scope {
  return writes ? "lsp:write" : "lsp:read";
}

/** The scope `principal` lacks for a call that needs `needed`; undefined when it may go ahead. */
export function missingScope(principal: Principal, needed: Scope): Scope | undefined {
  return hasScope(principal, needed) ? undefined : needed;
}

/** The scopes a challenge for `missing` asks for: a token that may write but not read could not even initialize. */
export function challengeScopes(missing: Scope): Scope[] {
  return missing === "lsp:write" ? ["lsp:read", "lsp:write"] : [missing];
}
