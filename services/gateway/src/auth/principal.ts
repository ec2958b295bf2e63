// Who is calling: the tenant a verified bearer token maps to, its scopes and optional workspace list.
import type { AuthInfo } from "@modelcontextprotocol/server";

/** The scopes of tool calls on /mcp, within the caller's tenant (the protected resource's scopes). */
export const TOOL_SCOPES = ["lsp:read", "lsp:write"] as const;
/**
 * The admin API (/admin/v1): tenants, workspaces and keys of every tenant. Not a tool scope: an
 * admin-only token calls no tool, and its tenant only says whose tools its lsp scopes reach.
 */
export const ADMIN_SCOPE = "lspmesh:admin";
export const SCOPES = [...TOOL_SCOPES, ADMIN_SCOPE] as const;
export type Scope = (typeof SCOPES)[number];
/** The scopes a key may list, for messages naming the fix. */
export const SCOPE_CHOICES = "lsp:read and/or lsp:write (tool calls), and/or lspmesh:admin (the admin API)";

export interface Principal {
  readonly tenant: string;
  /** Who the token was issued to (API key id or JWT sub); for logs and audit lines, never a secret. */
  readonly subject: string;
  readonly scopes: readonly Scope[];
  /** Workspaces the token is limited to; undefined = every workspace of the tenant. */
  readonly workspaces?: readonly string[] | undefined;
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes(scope);
}

/** Keeps the known scopes of a scope list ("lsp:read lsp:write other" → ["lsp:read", "lsp:write"]). */
export function knownScopes(raw: readonly string[]): Scope[] {
  return SCOPES.filter((scope) => raw.includes(scope));
}

const PRINCIPAL_KEY = "lspmesh/principal";

/**
 * The AuthInfo handed to the MCP handler (ctx.http.authInfo). It carries no token: tokens stop at
 * the HTTP layer and never reach tools, logs or runners.
 */
export function authInfoFor(principal: Principal): AuthInfo {
  return {
    token: "",
    clientId: principal.subject,
    scopes: [...principal.scopes],
    extra: { [PRINCIPAL_KEY]: principal },
  };
}

export function principalFrom(authInfo: AuthInfo | undefined): Principal | undefined {
  return authInfo?.extra?.[PRINCIPAL_KEY] as Principal | undefined;
}
