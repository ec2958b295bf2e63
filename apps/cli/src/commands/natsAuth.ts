// `lspmesh nats-auth`: the nats-server `authorization` block for a deployment's identities, the
// same permissions the tests run with. Passwords are variable references ($LSPMESH_NATS_<USER>_PASSWORD)
// that nats-server resolves from its environment (a Kubernetes Secret), never literals.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  createNatsTrust,
  mintNatsUser,
  NatsJwtError,
  natsAuthorizationConfig,
  natsJwtServerConfig,
  writeNatsTrust,
} from "@lspmesh/events";
import { ID_PATTERN, ID_RULE } from "@lspmesh/proto";
import { parseCommandFlags, UsageError } from "../usage.js";

export const HELP = `usage: lspmesh nats-auth --jwt --out DIR [--resolver-dir PATH]
       lspmesh nats-auth --runners ID[:TENANT+TENANT…][,…] --tenants TENANT[,…] [--admin]

--jwt (recommended): decentralized auth. Creates an operator and its accounts in DIR (keep it
secret: a Kubernetes Secret), the server's configuration DIR/nats-jwt.conf (include it from
nats.conf; its size does not grow with tenants or runners), and the first two credentials,
DIR/admin.creds and DIR/gateway.creds. Every other credential is minted and revoked while the
server runs with \`lspmesh admin creds\`, never a configuration change:
  --resolver-dir PATH  where nats-server keeps account JWTs (default DIR/jwt; in a pod, a path on
                       its persistent volume, e.g. /data/jwt)

Otherwise (static users and passwords):

Prints the nats-server authorization block for these identities (include it from nats.conf):
  gateway            reads the runner registry
  <runner id>        writes only its own registry key; diagnostics, status and file events of its
                     tenants (all tenants without :TENANT+…)
  ci-<tenant>        reads only that tenant's diagnostics and status (CI bots, diagnostics --watch)
  writer-<tenant>    announces that tenant's file changes (agent sandboxes, sync services)
  admin              everything (--admin; operators' tooling only)
Each password is $LSPMESH_NATS_<USER>_PASSWORD (upper case, '-' as '_'), read by nats-server from
its environment. See docs/security.md.`;

/** `$LSPMESH_NATS_CI_ACME_PASSWORD` for user ci-acme. */
export function passwordVariable(user: string): string {
  return `$LSPMESH_NATS_${user.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_PASSWORD`;
}

export async function runNatsAuthCommand(args: string[]): Promise<void> {
  const { values } = parseCommandFlags({
    args,
    options: {
      runners: { type: "string" },
      tenants: { type: "string" },
      admin: { type: "boolean" },
      jwt: { type: "boolean" },
      out: { type: "string" },
      "resolver-dir": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (values.jwt) return writeJwtTrust(values.out, values["resolver-dir"]);
  const list = (text: string | undefined) =>
    (text ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
  const tenants = list(values.tenants);
  const runners = list(values.runners).map((item) => {
    const [id = "", served] = item.split(":");
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(id))
      throw new UsageError(`invalid runner id '${id}': letters, digits, '_' and '-' (a NATS subject token)`);
    const only = served?.split("+").filter(Boolean);
    return { id, ...(only?.length ? { tenants: only } : {}) };
  });
  for (const tenant of [...tenants, ...runners.flatMap((runner) => runner.tenants ?? [])]) {
    if (!ID_PATTERN.test(tenant)) throw new UsageError(`invalid tenant '${tenant}': ${ID_RULE}`);
  }
  if (runners.length === 0) throw new UsageError("give the runners' ids with --runners (their LSPMESH_RUNNER_ID)");
  process.stdout.write(
    natsAuthorizationConfig({ runners, tenants, admin: values.admin ?? false, password: passwordVariable }),
  );
}

async function writeJwtTrust(out: string | undefined, resolverDir: string | undefined): Promise<void> {
  if (!out) throw new UsageError("--jwt needs --out DIR: the directory for the operator's keys and the server config");
  const dir = resolve(out);
  const trust = await createNatsTrust();
  try {
    writeNatsTrust(dir, trust);
  } catch (error) {
    if (error instanceof NatsJwtError) throw new UsageError(error.message);
    throw error;
  }
  writeFileSync(join(dir, "nats-jwt.conf"), natsJwtServerConfig(trust, resolverDir ?? join(dir, "jwt")));
  for (const kind of ["admin", "gateway"] as const) {
    const minted = await mintNatsUser(trust, { kind });
    writeFileSync(join(dir, `${kind}.creds`), minted.creds, { mode: 0o600 });
  }
  process.stdout.write(
    `wrote ${dir}: the NATS trust (operator.nk, account.nk, system-user.creds: secrets), nats-jwt.conf\n` +
      "(include it from nats.conf), admin.creds and gateway.creds. Mint the rest while NATS runs:\n" +
      `  lspmesh admin creds runner POOL [--tenants T,…] --nats-trust ${dir} --nats-creds ${join(dir, "admin.creds")}\n`,
  );
}
