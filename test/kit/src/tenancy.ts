// The gateway's tenancy configuration for tests, written the way an operator mounts it: an API
// keys file holding only SHA-256 hashes of the tokens, and a tenants file with each tenant's
// workspaces and call limits (docs/gateway.md). One place builds both, so no suite hashes tokens
// or spells the file formats itself.
import { createHash, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** A tenant's call limits (the gateway's defaults where unset). */
export interface TenantLimits {
  callsPerSecond?: number;
  concurrentCalls?: number;
}

export interface TenantSpec {
  /** Workspace ids, or an id with the languages of its workspace-wide calls. */
  workspaces: ReadonlyArray<string | { id: string; languages?: readonly string[] }>;
  limits?: TenantLimits;
}

export interface ApiKeySpec {
  tenant: string;
  /** Default ["lsp:read"]. */
  scopes?: ReadonlyArray<"lsp:read" | "lsp:write">;
  /** Narrows the key to these workspaces of its tenant; unset = all of them. */
  workspaces?: readonly string[];
  /** The bearer token; default a random one (see TenancyConfig.tokens). */
  token?: string;
}

export interface TenancyOptions<KeyId extends string = string> {
  /** Tenants by id. */
  tenants: Record<string, TenantSpec>;
  /** API keys by key id (the name in logs and audit lines, e.g. "acme-agent"). */
  keys?: Record<KeyId, ApiKeySpec>;
  /** Limits of tenants that set none. */
  defaultLimits?: TenantLimits;
}

export interface TenancyConfig<KeyId extends string = string> {
  /** The API keys file's content: `{ keys: [{ id, sha256, tenant, scopes, workspaces? }] }`. */
  apiKeys: {
    keys: Array<{ id: string; sha256: string; tenant: string; scopes: string[]; workspaces?: string[] }>;
  };
  /** The tenants file's content: `{ tenants: { <id>: { workspaces, limits? } }, defaults? }`. */
  tenants: { tenants: Record<string, unknown>; defaults?: { limits: TenantLimits } };
  /** Each key's bearer token, by key id. */
  tokens: Record<KeyId, string>;
}

export interface TenancyFiles<KeyId extends string = string> {
  /** For `--api-keys` / LSPMESH_API_KEYS_FILE. */
  apiKeysFile: string;
  /** For `--tenants` / LSPMESH_TENANTS_FILE. */
  tenantsFile: string;
  /** Each key's bearer token, by key id. */
  tokens: Record<KeyId, string>;
}

/** Lower-case hex SHA-256 of a token's UTF-8 bytes, as the API keys file holds it. */
export function tokenSha256(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Both files' content (for tests building the gateway's stores in process) and the tokens. */
export function tenancyConfig<KeyId extends string>(options: TenancyOptions<KeyId>): TenancyConfig<KeyId> {
  const tokens = {} as Record<KeyId, string>;
  const specs = Object.entries(options.keys ?? {}) as Array<[KeyId, ApiKeySpec]>;
  const keys = specs.map(([id, key]) => {
    const token = key.token ?? `${key.tenant}-${randomBytes(12).toString("base64url")}`;
    tokens[id] = token;
    return {
      id,
      sha256: tokenSha256(token),
      tenant: key.tenant,
      scopes: [...(key.scopes ?? ["lsp:read"])],
      ...(key.workspaces ? { workspaces: [...key.workspaces] } : {}),
    };
  });
  const tenants = Object.fromEntries(
    Object.entries(options.tenants).map(([id, tenant]) => [
      id,
      { workspaces: tenant.workspaces, ...(tenant.limits ? { limits: tenant.limits } : {}) },
    ]),
  );
  return {
    apiKeys: { keys },
    tenants: { tenants, ...(options.defaultLimits ? { defaults: { limits: options.defaultLimits } } : {}) },
    tokens,
  };
}

/** Writes `api-keys.json` and `tenants.json` into `dir` (which must exist); returns their paths and the tokens. */
export function writeTenancyFiles<KeyId extends string>(
  dir: string,
  options: TenancyOptions<KeyId>,
): TenancyFiles<KeyId> {
  const config = tenancyConfig(options);
  const apiKeysFile = join(dir, "api-keys.json");
  const tenantsFile = join(dir, "tenants.json");
  // A mounted secret: readable by its owner only.
  writeFileSync(apiKeysFile, JSON.stringify(config.apiKeys, null, 2), { mode: 0o600 });
  writeFileSync(tenantsFile, JSON.stringify(config.tenants, null, 2));
  return { apiKeysFile, tenantsFile, tokens: config.tokens };
}
