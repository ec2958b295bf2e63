// NATS subjects and streams of docs/events.md (contract: change only by extending).

/** JetStream stream holding the latest diagnostics of every file (one message kept per subject). */
export const DIAGNOSTICS_STREAM = "LSPMESH_DIAG";
/** Subjects of DIAGNOSTICS_STREAM; it keeps one message per subject (`max_msgs_per_subject: 1`). */
export const DIAGNOSTICS_STREAM_SUBJECTS = ["lspmesh.diag.>"];
/** KV bucket of live runners (docs/events.md). */
export const RUNNER_REGISTRY_BUCKET = "lspmesh-runners";
/**
 * KV bucket of the tenants each runner claims, one key per claim: `<tenant>.<runner id>`, or
 * `_any.<runner id>` for a shared pool. NATS lets a runner's identity write only the keys of
 * the tenants it was issued for, so a claim here, unlike the tenants its registry entry lists,
 * cannot be forged; gateways route a tenant only to runners holding its claim.
 */
export const RUNNER_CLAIMS_BUCKET = "lspmesh-runner-claims";
/** The claim of a runner issued for every tenant (tenant ids never start with '_'). */
export const ANY_TENANT_CLAIM = "_any";

/** The claims-bucket key of a runner's claim on a tenant (undefined: every tenant). */
export function runnerClaimKey(tenant: string | undefined, runnerId: string): string {
  return `${tenant ?? ANY_TENANT_CLAIM}.${runnerId}`;
}

/** The tenant (ANY_TENANT_CLAIM for every tenant) and runner id of a claims-bucket key. */
export function parseRunnerClaimKey(key: string): { tenant: string; runnerId: string } | undefined {
  const dot = key.indexOf(".");
  if (dot <= 0 || dot === key.length - 1) return undefined;
  return { tenant: key.slice(0, dot), runnerId: key.slice(dot + 1) };
}

/** `lspmesh.diag.<tenant>.<workspace>.<fileKey>`: latest diagnostics of one file. */
export function diagnosticsSubject(tenant: string, workspace: string, file: string): string {
  return `lspmesh.diag.${tenant}.${workspace}.${fileKey(file)}`;
}

/** Every file's diagnostics subject in one workspace (`…<workspace>.>`), or in all of them. */
export function diagnosticsWildcard(tenant?: string, workspace?: string): string {
  if (!tenant) return "lspmesh.diag.>";
  return workspace ? `lspmesh.diag.${tenant}.${workspace}.>` : `lspmesh.diag.${tenant}.>`;
}

/** `lspmesh.fs.<tenant>.<workspace>`: file-change events from writers. */
export function fileEventsSubject(tenant: string, workspace: string): string {
  return `lspmesh.fs.${tenant}.${workspace}`;
}

/** Every workspace's file-change subject (`lspmesh.fs.>`), or one tenant's. */
export function fileEventsWildcard(tenant?: string): string {
  return tenant ? `lspmesh.fs.${tenant}.*` : "lspmesh.fs.>";
}

/** `lspmesh.status.<tenant>.<workspace>`: session state changes. */
export function statusSubject(tenant: string, workspace: string): string {
  return `lspmesh.status.${tenant}.${workspace}`;
}

/**
 * `lspmesh.epoch.<tenant>.<workspace>`: what the workspace's language servers know changed (a
 * document opened, changed or closed, a file event, an edit); gateways drop the answers they
 * remembered for the workspace.
 */
export function epochSubject(tenant: string, workspace: string): string {
  return `lspmesh.epoch.${tenant}.${workspace}`;
}

/** Every workspace's epoch subject (`lspmesh.epoch.>`), or one tenant's. */
export function epochWildcard(tenant?: string): string {
  return tenant ? `lspmesh.epoch.${tenant}.*` : "lspmesh.epoch.>";
}

/**
 * A NATS-safe token for a workspace-relative path: base64url of its UTF-8 bytes (no '.', '*',
 * '>' or whitespace can appear; reversible with decodeFileKey). Paths longer than a subject can
 * carry are not expected: workspace paths are bounded by the filesystem (4 KiB).
 */
export function fileKey(file: string): string {
  return Buffer.from(file, "utf8").toString("base64url");
}

/** Every status subject (`lspmesh.status.>`), or one tenant's. */
export function statusWildcard(tenant?: string): string {
  return tenant ? `lspmesh.status.${tenant}.*` : "lspmesh.status.>";
}

export function decodeFileKey(key: string): string {
  return Buffer.from(key, "base64url").toString("utf8");
}
