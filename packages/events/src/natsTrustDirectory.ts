// The NATS trust (natsJwt.ts) as files in one directory, the form an operator keeps it in (a
// Kubernetes Secret's keys are the same names). Seeds and creds are written owner-only (0600).
//   operator.nk  operator.jwt        the operator: signs accounts (and revocations)
//   system.nk    system.jwt          the server's system account
//   system-user.creds                a SYS user: pushes account updates to the running server
//   account.nk   account.jwt         the LSPMESH account: signs every lspmesh credential
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NatsJwtError, type NatsTrust } from "./natsJwt.js";

const FILES = {
  operatorSeed: "operator.nk",
  operatorJwt: "operator.jwt",
  systemSeed: "system.nk",
  systemJwt: "system.jwt",
  systemUserCreds: "system-user.creds",
  accountSeed: "account.nk",
  accountJwt: "account.jwt",
} as const;

/** The files a trust directory holds. */
export const NATS_TRUST_FILES: readonly string[] = Object.values(FILES);

/** Writes a new trust; refuses a directory that already holds one (its credentials would all break). */
export function writeNatsTrust(dir: string, trust: NatsTrust): void {
  if (existsSync(join(dir, FILES.operatorSeed)))
    throw new NatsJwtError(`${dir} already holds a NATS trust (operator.nk): use it, or choose an empty directory`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secret = (name: string, text: string) => {
    writeFileSync(join(dir, name), text.endsWith("\n") ? text : `${text}\n`, { mode: 0o600 });
    chmodSync(join(dir, name), 0o600);
  };
  secret(FILES.operatorSeed, trust.operator.seed);
  secret(FILES.operatorJwt, trust.operator.jwt);
  secret(FILES.systemSeed, trust.system.seed);
  secret(FILES.systemJwt, trust.system.jwt);
  secret(FILES.systemUserCreds, trust.system.userCreds);
  secret(FILES.accountSeed, trust.account.seed);
  secret(FILES.accountJwt, trust.account.jwt);
}

/** Reads a trust directory; a missing file is named with the fix. */
export function readNatsTrust(dir: string): NatsTrust {
  const read = (name: string) => {
    try {
      return readFileSync(join(dir, name), "utf8").trim();
    } catch {
      throw new NatsJwtError(
        `cannot read ${join(dir, name)}: give the directory \`lspmesh nats-auth --jwt --out DIR\` wrote (--nats-trust DIR or LSPMESH_NATS_TRUST_DIR)`,
      );
    }
  };
  return {
    operator: { seed: read(FILES.operatorSeed), jwt: read(FILES.operatorJwt) },
    system: { seed: read(FILES.systemSeed), jwt: read(FILES.systemJwt), userCreds: read(FILES.systemUserCreds) },
    account: { seed: read(FILES.accountSeed), jwt: read(FILES.accountJwt) },
  };
}

/** Keeps the latest account JWT (after a revocation) beside the trust. */
export function writeAccountJwt(dir: string, jwt: string): void {
  writeFileSync(join(dir, FILES.accountJwt), `${jwt}\n`, { mode: 0o600 });
}

/** The path of the SYS user's creds file in a trust directory. */
export function systemUserCredsFile(dir: string): string {
  return join(dir, FILES.systemUserCreds);
}
