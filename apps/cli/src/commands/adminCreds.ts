// `lspmesh admin creds`: NATS credentials (decentralized JWT auth) minted and revoked while
// nats-server runs. Minting signs a user JWT with the LSPMESH account's seed from the trust
// directory (`lspmesh nats-auth --jwt`); each minted credential's public key is recorded in the
// control plane (`natsUsers.<name>.<public key>`: no secret), so `revoke NAME` finds every one
// of them. Revoking re-signs the account JWT with those keys in its revocations and pushes it to
// the running server as its SYS user: their connections close at once and cannot reconnect.
import { writeFileSync } from "node:fs";
import {
  lookupAccountJwt,
  mintNatsUser,
  NATS_CONNECTION_OPTIONS,
  NatsJwtError,
  type NatsJwtIdentity,
  type NatsTrust,
  natsAccountId,
  natsConnectOptions,
  natsServers,
  pushAccountJwt,
  readNatsTrust,
  revokeNatsUsers,
  systemUserCredsFile,
  writeAccountJwt,
} from "@lspmesh/events";
import { AdminError, type ControlPlaneStore, createJsonLogger } from "@lspmesh/gateway";
import { ID_PATTERN } from "@lspmesh/proto";
import { connect } from "@nats-io/transport-node";
import { UsageError } from "../usage.js";

/** A failure outside the request (NATS unreachable, no permission): exit 1 with the message. */
export class AdminFailure extends Error {}

/** Control-plane key prefix of minted NATS credentials (ignored by gateways and runners). */
export const NATS_USER_RECORDS = "natsUsers.";

export interface NatsUserRecord {
  v: 1;
  kind: NatsJwtIdentity["kind"];
  tenant?: string;
  pool?: string;
  tenants?: string[];
  issuedAt: string;
  expiresAt?: string;
}

export interface CredsFlags {
  tenants?: string | undefined;
  out?: string | undefined;
  "expires-in"?: string | undefined;
  "nats-trust"?: string | undefined;
  json?: boolean | undefined;
}

export interface CredsContext {
  current: ReadonlyMap<string, string>;
  store: ControlPlaneStore;
  natsUrl: string;
}

/** The identity `creds KIND [ARG]` names; a UsageError with the fix for anything else. */
export function credsIdentity(kind: string, rest: string[], tenants: string | undefined): NatsJwtIdentity {
  const one = (what: string) => {
    if (rest.length !== 1) throw new UsageError(`creds ${kind} takes ${what}`);
    const id = rest[0]!;
    if (!ID_PATTERN.test(id)) throw new UsageError(`invalid ${what.toLowerCase()} '${id}': a-z, 0-9, '_' or '-'`);
    return id;
  };
  const none = () => {
    if (rest.length !== 0) throw new UsageError(`creds ${kind} takes no arguments`);
  };
  switch (kind) {
    case "ci":
      return { kind: "ci", tenant: one("TENANT") };
    case "writer":
      return { kind: "writer", tenant: one("TENANT") };
    case "runner": {
      const pool = one("POOL");
      const served = tenants?.split(",").filter(Boolean);
      for (const tenant of served ?? [])
        if (!ID_PATTERN.test(tenant)) throw new UsageError(`invalid tenant '${tenant}' in --tenants`);
      return { kind: "runner", pool, ...(served?.length ? { tenants: served } : {}) };
    }
    case "gateway":
      none();
      return { kind: "gateway" };
    case "admin":
      none();
      return { kind: "admin" };
    default:
      throw new UsageError(`unknown creds kind '${kind}': ci, writer, runner, gateway or admin (or list, revoke)`);
  }
}

/** `30d`, `12h`, `90m`, `3600s` → seconds. */
export function parseDuration(text: string, flag = "--expires-in"): number {
  const match = /^(\d+)([smhd])$/.exec(text);
  if (!match || Number(match[1]) === 0)
    throw new UsageError(`${flag} must be a number above 0 and s, m, h or d (e.g. 30d), not '${text}'`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as "s" | "m" | "h" | "d"];
}

function trustOf(flags: CredsFlags): { dir: string; trust: NatsTrust } {
  const dir = flags["nats-trust"] ?? process.env.LSPMESH_NATS_TRUST_DIR;
  if (!dir)
    throw new UsageError(
      "creds needs the NATS trust directory (`lspmesh nats-auth --jwt --out DIR` made it): --nats-trust DIR or LSPMESH_NATS_TRUST_DIR",
    );
  try {
    return { dir, trust: readNatsTrust(dir) };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const audit = () => createJsonLogger({ service: "admin", level: "info" });
const by = () => process.env.LSPMESH_NATS_USER ?? process.env.USER ?? "unknown";

export async function mintCreds(identity: NatsJwtIdentity, flags: CredsFlags, context: CredsContext): Promise<void> {
  const { trust } = trustOf(flags);
  const expiresInSeconds = flags["expires-in"] ? parseDuration(flags["expires-in"], "--expires-in") : undefined;
  const minted = await mintNatsUser(trust, identity, expiresInSeconds ? { expiresInSeconds } : {});
  const record: NatsUserRecord = {
    v: 1,
    kind: identity.kind,
    ...(identity.kind === "ci" || identity.kind === "writer" ? { tenant: identity.tenant } : {}),
    ...(identity.kind === "runner"
      ? { pool: identity.pool, ...(identity.tenants ? { tenants: [...identity.tenants] } : {}) }
      : {}),
    issuedAt: new Date(minted.issuedAt * 1000).toISOString(),
    ...(minted.expiresAt ? { expiresAt: new Date(minted.expiresAt * 1000).toISOString() } : {}),
  };
  const key = `${NATS_USER_RECORDS}${minted.name}.${minted.publicKey}`;
  await context.store.put(key, JSON.stringify(record));
  audit().info("audit", { tool: "admin", key, change: "put", by: by() });
  if (flags.out) {
    writeFileSync(flags.out, minted.creds, { mode: 0o600 });
    console.error(`wrote ${flags.out} (${minted.name}, ${minted.publicKey})`);
  } else process.stdout.write(minted.creds);
}

export function listCreds(flags: CredsFlags, context: CredsContext): void {
  const records = [...context.current]
    .filter(([key]) => key.startsWith(NATS_USER_RECORDS))
    .map(([key, value]) => {
      const [name, publicKey] = key.slice(NATS_USER_RECORDS.length).split(".");
      return { name: name!, publicKey: publicKey!, ...(JSON.parse(value) as NatsUserRecord) };
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.issuedAt.localeCompare(b.issuedAt));
  if (flags.json) {
    console.log(JSON.stringify(records));
    return;
  }
  if (records.length === 0) console.log("(none)");
  for (const record of records)
    console.log(
      `${record.name}\t${record.publicKey}\tissued ${record.issuedAt}${record.expiresAt ? `\texpires ${record.expiresAt}` : ""}${record.tenants ? `\ttenants ${record.tenants.join(",")}` : ""}`,
    );
}

/** Revokes every credential minted for NAME (or the one public key given, e.g. the bootstrap ones). */
export async function revokeCreds(target: string, flags: CredsFlags, context: CredsContext): Promise<void> {
  const { dir, trust } = trustOf(flags);
  const byKey = /^U[A-Z2-7]{55}$/.test(target);
  const keys = [...context.current.keys()].filter((key) =>
    byKey
      ? key.endsWith(`.${target}`) && key.startsWith(NATS_USER_RECORDS)
      : key.startsWith(`${NATS_USER_RECORDS}${target}.`),
  );
  const publicKeys = byKey ? [target] : keys.map((key) => key.slice(key.lastIndexOf(".") + 1));
  if (publicKeys.length === 0)
    throw new AdminError("NOT_FOUND", `no NATS credentials named '${target}'; see lspmesh admin creds list`);
  const system = await connect({
    servers: natsServers(context.natsUrl),
    name: "lspmesh-admin-sys",
    ...natsConnectOptions({ credentials: { kind: "creds", file: systemUserCredsFile(dir) } }),
    ...NATS_CONNECTION_OPTIONS,
    maxReconnectAttempts: 0,
  }).catch((error: unknown) => {
    throw new AdminFailure(`cannot reach NATS as the system user: ${(error as Error).message}`);
  });
  try {
    // The server's copy first: another operator's revocations since this directory's copy stay.
    const current = (await lookupAccountJwt(system, natsAccountId(trust)).catch(() => undefined)) ?? trust.account.jwt;
    const updated = await revokeNatsUsers(trust, current, publicKeys);
    await pushAccountJwt(system, updated);
    writeAccountJwt(dir, updated);
  } catch (error) {
    if (error instanceof NatsJwtError) throw new AdminFailure(error.message);
    throw error;
  } finally {
    await system.close();
  }
  for (const key of keys) {
    await context.store.delete(key);
    audit().info("audit", { tool: "admin", key, change: "revoke", by: by() });
  }
  for (const publicKey of publicKeys) console.log(`revoked ${publicKey}`);
}
