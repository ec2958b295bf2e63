// A real nats-server running the shipped configuration (deploy/nats/nats.conf and the
// authorization.conf it includes), with a fresh random password for every user it declares.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { type NatsServer, startNatsServer } from "@lspmesh/test-kit";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { repoPath } from "./repo.js";

export const NATS_CONFIG = repoPath("deploy/nats/nats.conf");
export const NATS_AUTHORIZATION = repoPath("deploy/nats/authorization.conf");

/** user → the environment variable holding its password, as declared in an authorization.conf. */
export function natsUsers(text = readFileSync(NATS_AUTHORIZATION, "utf8")): Map<string, string> {
  const users = new Map<string, string>();
  for (const match of text.matchAll(/user:\s*([\w-]+),\s*password:\s*\$(\w+)/g)) {
    users.set(match[1]!, match[2]!);
  }
  return users;
}

/** The quoted subjects in one user's block of an authorization.conf (empty: no such user). */
export function natsPermissionsOf(text: string, user: string): string[] {
  const start = text.indexOf(`user: ${user},`);
  if (start < 0) return [];
  const next = text.indexOf("user:", start + 1);
  return [...text.slice(start, next < 0 ? undefined : next).matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
}

export interface ShippedNats extends AsyncDisposable {
  readonly server: NatsServer;
  readonly url: string;
  password(user: string): string;
  /** A connection as `user` (closed with the server). */
  connectAs(user: string, options?: { inboxPrefix?: string }): Promise<NatsConnection>;
  close(): Promise<void>;
}

export async function startShippedNats(): Promise<ShippedNats> {
  const passwords = new Map<string, string>();
  const env: Record<string, string> = {};
  for (const [user, variable] of natsUsers()) {
    // nats-server parses a `$NAME` value as a config token: letters first, then hex (docs/deploy.md).
    const password = `pw${randomBytes(18).toString("hex")}`;
    passwords.set(user, password);
    env[variable] = password;
  }
  const server = await startNatsServer({ configFile: NATS_CONFIG, env });
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
    })();
    return closing;
  };
  return {
    server,
    url: server.url,
    password,
    async connectAs(user, options = {}) {
      const nc = await connect({ servers: server.url, user, pass: password(user), ...options });
      connections.push(nc);
      return nc;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
