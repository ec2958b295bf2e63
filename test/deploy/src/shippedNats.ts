// The shipped NATS for real: three nats-servers in a cluster, each running the shipped
// configuration (deploy/nats/nats.conf: server_name from POD_NAME, JetStream, the cluster block;
// the test's own ports, routes and stores), with the JWT configuration `lspmesh nats-auth --jwt`
// writes for a fresh trust where the manifests mount it (../nats-jwt/nats-jwt.conf beside the
// config directory; a resolver directory per server, as each pod has its volume), and credentials
// minted per identity the way `lspmesh admin creds` mints them (natsJwt.ts): nothing per tenant or
// runner on the servers.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  createNatsTrust,
  inboxPrefixOf,
  mintNatsUser,
  type NatsJwtIdentity,
  type NatsTrust,
  natsJwtServerConfig,
} from "@lspmesh/events";
import { type NatsCluster, startNatsCluster } from "@lspmesh/test-kit";
import { type ConnectionOptions, connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { repoPath } from "./repo.js";

export const NATS_CONFIG = repoPath("deploy/nats/nats.conf");

/** Where nats.conf looks for the JWT configuration, relative to its own directory. */
export function natsJwtInclude(text = readFileSync(NATS_CONFIG, "utf8")): string | undefined {
  return /^include\s+(\S+)\s*$/m.exec(text)?.[1];
}

export interface ShippedNats extends AsyncDisposable {
  readonly cluster: NatsCluster;
  /** One server's URL (a client there reaches the whole cluster). */
  readonly url: string;
  /** Every server's URL. */
  readonly urls: readonly string[];
  readonly trust: NatsTrust;
  /** Connect options with a freshly minted credential for `identity` (a creds file's content). */
  credentials(identity: NatsJwtIdentity, trust?: NatsTrust): Promise<ConnectionOptions>;
  /** A connection with a freshly minted credential for `identity` (closed with the server). */
  connectAs(identity: NatsJwtIdentity): Promise<NatsConnection>;
  close(): Promise<void>;
}

/** Three nats-servers with the shipped nats.conf and a new operator trust's nats-jwt.conf. */
export async function startShippedNats(): Promise<ShippedNats> {
  const dir = mkdtempSync(join(tmpdir(), "lspmesh-shipped-nats-"));
  const include = natsJwtInclude();
  if (!include) throw new Error(`${NATS_CONFIG} includes no JWT configuration`);
  const trust = await createNatsTrust();
  /** A server's /etc/nats/nats.conf, its include, and its resolver directory, under dir/n<index>. */
  const configFile = (index: number) => {
    const configDir = join(dir, `n${index}`, "etc", "nats");
    mkdirSync(configDir, { recursive: true });
    copyFileSync(NATS_CONFIG, join(configDir, "nats.conf"));
    const jwtConfig = join(configDir, include);
    mkdirSync(dirname(jwtConfig), { recursive: true });
    // What `lspmesh nats-auth --jwt --out DIR --resolver-dir <resolver>` writes as DIR/nats-jwt.conf.
    writeFileSync(jwtConfig, natsJwtServerConfig(trust, join(dir, `n${index}`, "jwt")));
    return join(configDir, "nats.conf");
  };
  const cluster = await startNatsCluster({ configFile }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const connections: NatsConnection[] = [];
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await Promise.all(connections.map((nc) => nc.close().catch(() => {})));
      await cluster.close();
      rmSync(dir, { recursive: true, force: true });
    })();
    return closing;
  };
  const credentials = async (identity: NatsJwtIdentity, signer = trust): Promise<ConnectionOptions> => {
    const minted = await mintNatsUser(signer, identity);
    // Every identity reads replies only on its own inbox prefix, named after its user.
    return {
      authenticator: credsAuthenticator(new TextEncoder().encode(minted.creds)),
      inboxPrefix: inboxPrefixOf(minted.name),
    };
  };
  return {
    cluster,
    url: cluster.urls[0]!,
    urls: cluster.urls,
    trust,
    credentials,
    async connectAs(identity) {
      // Every identity on the same server first (the others are its fail-over): a subscription is
      // then known where the next publish arrives once its connection flushed. Spread over three
      // servers, interest reaches the other two asynchronously, and a status published right
      // after another identity's flush was lost (a test waited 30 s for it).
      const nc = await connect({ servers: [...cluster.urls], noRandomize: true, ...(await credentials(identity)) });
      connections.push(nc);
      return nc;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
