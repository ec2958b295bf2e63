// NATS decentralized authentication: an operator signs two accounts (SYS, the server's own, and
// LSPMESH, where every lspmesh identity lives); the LSPMESH account signs one user JWT per credential.
// nats-server trusts the operator and keeps the accounts in its `full` resolver directory, so a
// credential is minted or revoked without touching the server's configuration or restarting it:
// minting needs only the account's seed; revoking re-signs the account JWT (operator seed) with the
// user's key in `revocations` and pushes it to the running server ($SYS.REQ.CLAIMS.UPDATE), which
// closes that user's connections at once and refuses it from then on.
// Built on the NATS project's own libraries (@nats-io/jwt, @nats-io/nkeys). Works on nats-server 2.9+.
import {
  type Account,
  Algorithms,
  createAccount,
  createOperator,
  createUser,
  decode,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fmtCreds,
  fromSeed,
  type KeyPair,
  type User,
} from "@nats-io/jwt";
import type { NatsConnection } from "@nats-io/transport-node";
import { inboxPrefixOf } from "./natsAuth.js";
import {
  NATS_USERS,
  natsUserPermissions,
  REGISTRY_READER_STREAMS,
  runnerPermissions,
  WORKSPACE_USAGE_WRITER,
} from "./natsAuthorization.js";
import { epochWildcard } from "./subjects.js";

/** The keys and JWTs an operator keeps secret (a directory or a Kubernetes Secret: natsTrustDirectory.ts). */
export interface NatsTrust {
  operator: { seed: string; jwt: string };
  /** The server's system account and a user of it, to push account updates. */
  system: { seed: string; jwt: string; userCreds: string };
  /** The LSPMESH account every lspmesh identity belongs to. */
  account: { seed: string; jwt: string };
}

/** A credential's identity: what it may do is derived from this alone (natsJwtPermissions). */
export type NatsJwtIdentity =
  | { kind: "gateway" }
  /** Every replica of a pool shares it; their runner ids must be `<pool>.<name>`. */
  | { kind: "runner"; pool: string; tenants?: readonly string[] }
  | { kind: "ci"; tenant: string }
  | { kind: "writer"; tenant: string }
  | { kind: "admin" };

export const NATS_JWT_KINDS = ["gateway", "runner", "ci", "writer", "admin"] as const;

export class NatsJwtError extends Error {
  override name = "NatsJwtError";
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const seedOf = (pair: KeyPair) => text(pair.getSeed());
const OPTIONS = { algorithm: Algorithms.v2 };
/**
 * No limit (-1) on anything an account may hold (an account JWT without them allows no connection
 * at all); lspmesh's own limits apply above NATS. The system account has no JetStream.
 */
const UNLIMITED_SYSTEM: Account["limits"] = {
  subs: -1,
  data: -1,
  payload: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
  conn: -1,
  leaf: -1,
};
const UNLIMITED_ACCOUNT: Account["limits"] = {
  ...UNLIMITED_SYSTEM,
  mem_storage: -1,
  disk_storage: -1,
  streams: -1,
  consumer: -1,
};

/** The NATS user name of an identity; also its reply-inbox prefix (`_INBOX_<name>`). */
export function natsJwtUserName(identity: NatsJwtIdentity): string {
  switch (identity.kind) {
    case "gateway":
      return NATS_USERS.gateway;
    case "runner":
      return `runner-${identity.pool}`;
    case "ci":
      return NATS_USERS.ci(identity.tenant);
    case "writer":
      return NATS_USERS.writer(identity.tenant);
    case "admin":
      return NATS_USERS.admin;
  }
}

/** The permissions a user JWT carries, in the JWT's shape. */
export function natsJwtPermissions(identity: NatsJwtIdentity): Pick<User, "pub" | "sub" | "resp"> {
  const user = natsJwtUserName(identity);
  switch (identity.kind) {
    case "admin":
      return { pub: { allow: [">"] }, sub: { allow: [">"] } };
    case "gateway":
      // Every tenant's symbol index is read, so the bucket is a wildcard (`KV_*`): the gateway serves
      // every tenant, and writes nothing but workspaces' last uses (`$KV.lspmesh-usage.>`).
      return {
        pub: {
          allow: unique([
            ...REGISTRY_READER_STREAMS.flatMap((stream) => [
              `$JS.API.STREAM.INFO.${stream}`,
              `$JS.API.STREAM.CREATE.${stream}`,
            ]),
            "$JS.API.INFO",
            "$JS.API.STREAM.INFO.*",
            "$JS.API.CONSUMER.CREATE.*",
            "$JS.API.CONSUMER.CREATE.*.>",
            "$JS.API.CONSUMER.INFO.*.*",
            "$JS.API.CONSUMER.DELETE.*.*",
            "$JS.API.CONSUMER.MSG.NEXT.*.*",
            "$JS.API.DIRECT.GET.*.>",
            "$JS.API.STREAM.MSG.GET.*",
            // Flow control of a large watch (a symbol index): without it the replay stalls.
            "$JS.FC.*.>",
            ...WORKSPACE_USAGE_WRITER,
          ]),
        },
        // Workspaces' epochs: remembered answers are dropped when a workspace moves on.
        sub: { allow: [`${inboxPrefixOf(user)}.>`, epochWildcard()] },
      };
    case "runner": {
      const permissions = runnerPermissions({
        user,
        runnerIds: `${identity.pool}.*`,
        tenants: identity.tenants,
        allTenants: "any",
      });
      return {
        pub: { allow: permissions.publish, ...(permissions.publishDeny ? { deny: permissions.publishDeny } : {}) },
        sub: { allow: permissions.subscribe },
        resp: { max: 1, ttl: 0 },
      };
    }
    case "ci":
    case "writer": {
      const found = natsUserPermissions({ runners: [], tenants: [identity.tenant] }).find(
        (candidate) => candidate.user === user,
      );
      if (!found) throw new NatsJwtError(`no permissions for ${user}`);
      return { pub: { allow: found.publish }, sub: { allow: found.subscribe } };
    }
  }
}

function unique(subjects: string[]): string[] {
  return [...new Set(subjects)];
}

/** A new operator with its SYS and LSPMESH accounts and a SYS user (for account updates). */
export async function createNatsTrust(operatorName = "lspmesh"): Promise<NatsTrust> {
  const operator = createOperator();
  const system = createAccount();
  const account = createAccount();
  const systemUser = createUser();
  const operatorJwt = await encodeOperator(operatorName, operator, { system_account: system.getPublicKey() }, OPTIONS);
  const systemJwt = await encodeAccount("SYS", system, { limits: UNLIMITED_SYSTEM }, { ...OPTIONS, signer: operator });
  const accountJwt = await encodeAccount(
    "LSPMESH",
    account,
    { limits: UNLIMITED_ACCOUNT },
    { ...OPTIONS, signer: operator },
  );
  const systemUserJwt = await encodeUser("sys", systemUser, system, {}, OPTIONS);
  return {
    operator: { seed: seedOf(operator), jwt: operatorJwt },
    system: { seed: seedOf(system), jwt: systemJwt, userCreds: text(fmtCreds(systemUserJwt, systemUser)) },
    account: { seed: seedOf(account), jwt: accountJwt },
  };
}

/** The public key (id) of a trust's LSPMESH account. */
export function natsAccountId(trust: NatsTrust): string {
  return fromSeed(new TextEncoder().encode(trust.account.seed)).getPublicKey();
}

/**
 * nats-server configuration for decentralized auth, to include beside `listen` and `jetstream`:
 * the operator, the system account, and the `full` resolver (account JWTs in `resolverDir`, updated
 * at run time) preloaded with the two accounts. Constant size whatever the number of tenants.
 */
export function natsJwtServerConfig(trust: NatsTrust, resolverDir: string): string {
  const system = fromSeed(new TextEncoder().encode(trust.system.seed)).getPublicKey();
  const account = natsAccountId(trust);
  return [
    `operator: ${trust.operator.jwt}`,
    `system_account: ${system}`,
    "resolver: {",
    "  type: full",
    `  dir: ${JSON.stringify(resolverDir)}`,
    // Accounts are never deleted through the API; a revocation is an account update.
    "  allow_delete: false",
    '  interval: "2m"',
    "}",
    "resolver_preload: {",
    `  ${system}: ${trust.system.jwt}`,
    `  ${account}: ${trust.account.jwt}`,
    "}",
    "",
  ].join("\n");
}

export interface MintedNatsUser {
  name: string;
  /** The user's public key: what a revocation names. */
  publicKey: string;
  /** The creds file's text (JWT + seed): a secret. */
  creds: string;
  issuedAt: number;
  expiresAt?: number;
}

/** Mints a credential for an identity, signed by the LSPMESH account (its seed). */
export async function mintNatsUser(
  trust: Pick<NatsTrust, "account">,
  identity: NatsJwtIdentity,
  options: { expiresInSeconds?: number; now?: number } = {},
): Promise<MintedNatsUser> {
  const user = createUser();
  const account = fromSeed(new TextEncoder().encode(trust.account.seed));
  const name = natsJwtUserName(identity);
  const issuedAt = Math.floor((options.now ?? Date.now()) / 1000);
  const expiresAt = options.expiresInSeconds ? issuedAt + options.expiresInSeconds : undefined;
  const tags = [
    `lspmesh:${identity.kind}`,
    ...(identity.kind === "runner"
      ? [`pool:${identity.pool}`, ...(identity.tenants ?? []).map((t) => `tenant:${t}`)]
      : []),
    ...(identity.kind === "ci" || identity.kind === "writer" ? [`tenant:${identity.tenant}`] : []),
  ];
  const jwt = await encodeUser(
    name,
    user,
    account,
    { ...natsJwtPermissions(identity), tags },
    { ...OPTIONS, ...(expiresAt ? { exp: expiresAt } : {}) },
  );
  return {
    name,
    publicKey: user.getPublicKey(),
    creds: text(fmtCreds(jwt, user)),
    issuedAt,
    ...(expiresAt ? { expiresAt } : {}),
  };
}

/**
 * The account JWT re-signed by the operator with these user keys revoked: every JWT of theirs
 * issued at or before `at` (seconds; default now) is refused. Revocations already in the JWT stay.
 */
export async function revokeNatsUsers(
  trust: Pick<NatsTrust, "operator" | "account">,
  currentAccountJwt: string,
  publicKeys: readonly string[],
  at = Math.floor(Date.now() / 1000),
): Promise<string> {
  const claims = decode<Account>(currentAccountJwt);
  const account = fromSeed(new TextEncoder().encode(trust.account.seed));
  if (claims.sub !== account.getPublicKey())
    throw new NatsJwtError("the account JWT given is not the LSPMESH account of this trust");
  const revocations = { ...(claims.nats.revocations ?? {}) };
  for (const key of publicKeys) revocations[key] = at;
  const operator = fromSeed(new TextEncoder().encode(trust.operator.seed));
  const { type: _type, version: _version, ...rest } = claims.nats as Account & { type?: string; version?: number };
  return encodeAccount(claims.name, account, { ...rest, revocations }, { ...OPTIONS, signer: operator });
}

/** The account JWT the running server holds (through a SYS user's connection), or undefined. */
export async function lookupAccountJwt(system: NatsConnection, accountId: string): Promise<string | undefined> {
  const reply = await system.request(`$SYS.REQ.ACCOUNT.${accountId}.CLAIMS.LOOKUP`, "", { timeout: 5_000 });
  const jwt = reply.string().trim();
  return jwt.startsWith("ey") ? jwt : undefined;
}

/** Pushes an account JWT to the running server(s); throws NatsJwtError when one refuses it. */
export async function pushAccountJwt(system: NatsConnection, accountJwt: string): Promise<void> {
  const reply = await system.request("$SYS.REQ.CLAIMS.UPDATE", accountJwt, { timeout: 5_000 });
  const answer = reply.json<{ error?: { description?: string }; data?: { code?: number; message?: string } }>();
  if (answer.error || (answer.data?.code ?? 200) >= 300)
    throw new NatsJwtError(
      `nats-server refused the account update: ${answer.error?.description ?? answer.data?.message ?? "unknown error"}`,
    );
}
