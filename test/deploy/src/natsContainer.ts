// nats-server with JetStream and lspmesh's authorization (one user per identity, as the shipped
// configuration) in a container on a podman network, where containers reach it by address; the
// test-kit NatsServer interface, so the kit's gateway starter on the host logs in to it.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { inboxPrefixOf, NATS_USERS, natsAuthorizationConfig } from "@lspmesh/events";
import { type NatsServer, waitFor } from "@lspmesh/test-kit";
import { connect as natsConnect } from "@nats-io/transport-node";
import { podman, podmanLogs } from "./podman.js";

const PORT = 4222;

export interface NatsContainer extends NatsServer {
  /** Its address on the network. */
  readonly ip: string;
}

export async function startNatsContainer(options: {
  name: string;
  image: string;
  network: string;
  ip: string;
  /** A folder for its configuration file. */
  dir: string;
  tenants: readonly string[];
  runners: ReadonlyArray<{ id: string; tenants?: readonly string[] }>;
}): Promise<NatsContainer> {
  const passwords = new Map<string, string>();
  const password = (user: string) => {
    if (!passwords.has(user)) passwords.set(user, `p${randomBytes(18).toString("hex")}`);
    return passwords.get(user)!;
  };
  const configFile = join(options.dir, "nats.conf");
  writeFileSync(
    configFile,
    `listen: "0.0.0.0:${PORT}"\njetstream { store_dir: "/data/jetstream" }\n${natsAuthorizationConfig({
      runners: options.runners,
      tenants: options.tenants,
      admin: true,
      password,
    })}`,
    { mode: 0o644 },
  );
  await podman(
    "run",
    "--detach",
    "--name",
    options.name,
    "--network",
    options.network,
    "--ip",
    options.ip,
    "--read-only",
    "--tmpfs",
    "/data",
    "--volume",
    `${configFile}:/etc/nats/nats.conf:ro`,
    options.image,
    "nats-server",
    "--config",
    "/etc/nats/nats.conf",
  );
  const url = `nats://${options.ip}:${PORT}`;
  const connectOptions = (user: string) => ({ user, pass: password(user), inboxPrefix: inboxPrefixOf(user) });
  const close = async () => {
    await podman("rm", "--force", "--time", "2", "--ignore", options.name);
  };
  const unsupported = async () => {
    throw new Error("the NATS container's identities are fixed when it starts");
  };
  const container: NatsContainer = {
    url,
    port: PORT,
    ip: options.ip,
    secured: true,
    close,
    stop: close,
    restart: unsupported,
    addRunner: unsupported,
    // The process runs in the container's own pid namespace: not a host pid.
    pid: () => undefined,
    connectOptions,
    env: (user) => ({ LSPMESH_NATS_USER: user, LSPMESH_NATS_PASSWORD: password(user) }),
    [Symbol.asyncDispose]: close,
  };
  // Up once the admin may log in (the host reaches the container's address on the network).
  await waitFor(
    `NATS in ${options.name}`,
    async () => {
      await (await natsConnect({ servers: url, ...connectOptions(NATS_USERS.admin), timeout: 2_000 })).close();
      return true;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  ).catch(async (error: Error) => {
    const logs = await podmanLogs(options.name).catch(String);
    await close();
    throw new Error(`${error.message}\n${logs}`);
  });
  return container;
}
