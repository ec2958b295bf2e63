// A real nats-server running the shipped configuration (deploy/nats/nats.conf and the
// authorization.conf it includes), with a fresh random password for every user it declares.
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inboxPrefixOf } from "@lspmesh/events";
import { type NatsServer, startNatsServer } from "@lspmesh/test-kit";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { repoPath } from "./repo.js";

export const NATS_CONFIG = repoPath("deploy/nats/nats.conf");
export const NATS_AUTHORIZATION = repoPath("deploy/nats/authorization.conf");

/** user → the environment variable holding its password, as declared in an authorization.conf. */
export function natsUsers(text = readFileSync(NATS_AUTHORIZATION, "utf8")): Map<string, string> {
  const users = new Map<string, string>();
  for (const match of text.matchAll(/user:\s*"([\w-]+)"\s*password:\s*\$(\w+)/g)) {
    users.set(match[1]!, match[2]!);
  }
  return users;
}

/** The quoted subjects in one user's block of an authorization.conf (empty: no such user). */
export function natsPermissionsOf(text: string, user: string): string[] {
  const start = text.indexOf(`user: "${user}"`);
  if (start < 0) return [];
  const next = text.indexOf("user:", start + 1);
  return [...text.slice(start, next < 0 ? undefined : next).matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
}

export interface ShippedNats extends AsyncDisposable {
  readonly server: NatsServer;
  readonly url: string;
  password(user: string): string;
  /** A connection as `user` (closed with the server). */
  connectAs(user: string): Promise<NatsConnection>;
  close(): Promise<void>;
}

/**
 * nats-server with the shipped nats.conf including `authorization` (default the shipped
 * deploy/nats/authorization.conf; an overlay's own, e.g. overlays/prod/authorization.conf).
 */
export async function startShippedNats(authorization = NATS_AUTHORIZATION): Promise<ShippedNats> {
  const dir = mkdtempSync(join(tmpdir(), "lspmesh-shipped-nats-"));
  copyFileSync(NATS_CONFIG, join(dir, "nats.conf"));
  copyFileSync(authorization, join(dir, "authorization.conf"));
  const passwords = new Map<string, string>();
  const env: Record<string, string> = {};
  for (const [user, variable] of natsUsers(readFileSync(authorization, "utf8"))) {
    // nats-server parses a `$NAME` value as a config token: letters first, then hex (docs/deploy.md).
    const password = `pw${randomBytes(18).toString("hex")}`;
    passwords.set(user, password);
    env[variable] = password;
  }
  const server = await startNatsServer({ configFile: join(dir, "nats.conf"), env });
  const connections: NatsConnection[] = [];
  const password = (user: string) => {
    const found = passwords.get(user);
    if (!found) throw new Error(`authorization.conf declares no user ${user}`);
    return found;
  };
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await Promise.all(connections.map((nc) => nc.close().catch(() => {})));
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    })();
    return closing;
  };
  return {
    server,
    url: server.url,
    password,
    async connectAs(user) {
      // Every identity reads replies only on its own inbox prefix.
      const nc = await connect({ servers: server.url, user, pass: password(user), inboxPrefix: inboxPrefixOf(user) });
      connections.push(nc);
      return nc;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
