// Starts a real nats-server with JetStream on a free loopback port, for tests. A secured one runs
// with the authorization lspmesh ships (natsAuthorizationConfig): one user per identity, nothing
// for a client without credentials; in JWT mode, decentralized auth (natsJwt.ts): an operator
// trust in the store, one minted creds file per identity, nothing in the configuration per tenant.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createNatsTrust,
  inboxPrefixOf,
  mintNatsUser,
  NATS_USERS,
  type NatsJwtIdentity,
  type NatsTrust,
  natsAuthorizationConfig,
  natsJwtServerConfig,
  writeNatsTrust,
} from "@lspmesh/events";
import { credsAuthenticator, connect as natsConnect } from "@nats-io/transport-node";
import { waitFor } from "./waitFor.js";

export interface NatsServer extends AsyncDisposable {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM, then SIGKILL after 2 s) and removes its store. Idempotent. */
  close(): Promise<void>;
  /** Stops it without removing the store, so a restart on the same port keeps streams and KV. */
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop()). */
  restart(): Promise<void>;
  /** True when it runs with lspmesh's authorization (startNatsServer({ secured })). */
  readonly secured: boolean;
  /** JWT mode: the trust directory (operator, accounts, SYS user), as `lspmesh admin creds` takes it. */
  readonly trustDir?: string;
  /**
   * Connect options of a user (`gateway`, a runner id, `ci-<t>`, `writer-<t>`, `admin`); {} when not
   * secured. In JWT mode a runner id is `<pool>.<name>` and its creds are its pool's.
   */
  connectOptions(user: string): {
    user?: string;
    pass?: string;
    inboxPrefix?: string;
    authenticator?: ReturnType<typeof credsAuthenticator>;
  };
  /** LSPMESH_NATS_* variables for an lspmesh process acting as `user` ({} when not secured). */
  env(user: string): Record<string, string>;
  /** Adds a runner identity serving `tenants` (default all) and reloads the server's configuration. */
  addRunner(id: string, tenants?: readonly string[]): Promise<void>;
  /** The nats-server process id now (undefined while stopped): a test shows it was never restarted. */
  pid(): number | undefined;
}

export interface NatsServerOptions {
  /** Run with lspmesh's authorization for these tenants (and runners, more with addRunner). */
  secured?: {
    tenants: readonly string[];
    runners?: ReadonlyArray<{ id: string; tenants?: readonly string[] }>;
    /** "jwt": decentralized auth, credentials minted per identity (default "password"). */
    mode?: "password" | "jwt";
  };
  /**
   * Run this configuration file instead (e.g. the shipped deploy/nats/nats.conf); address, ports
   * and store are still the test's (flags override the file). Not with `secured`.
   */
  configFile?: string;
  /** Variables the configuration file reads (`$NAME`, e.g. passwords). */
  env?: Record<string, string>;
}

/** The machine's nats-server. */
export const NATS_SERVER_BINARY =
  ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].find(existsSync) ?? "nats-server";

/** A TCP port free on loopback now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

/** True when something accepts a TCP connection on the loopback port. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const port = await freePort();
  const store = mkdtempSync(join(tmpdir(), "lspmesh-nats-"));
  const url = `nats://127.0.0.1:${port}`;
  const secured = options.secured;
  const runners = [...(secured?.runners ?? [])];
  const passwords = new Map<string, string>();
  const password = (user: string) => {
    if (!passwords.has(user)) passwords.set(user, randomBytes(18).toString("base64url"));
    return passwords.get(user)!;
  };
  const configFile = join(store, "nats.conf");
  const jwt = secured?.mode === "jwt" ? await jwtCredentials(store, secured.tenants, runners) : undefined;
  const writeConfig = () =>
    writeFileSync(
      configFile,
      `listen: "127.0.0.1:${port}"\njetstream { store_dir: ${JSON.stringify(join(store, "js"))} }\n${
        jwt
          ? natsJwtServerConfig(jwt.trust, join(store, "jwt"))
          : natsAuthorizationConfig({ runners, tenants: secured?.tenants ?? [], admin: true, password })
      }`,
    );
  const connectOptions = (user: string) =>
    jwt
      ? {
          authenticator: credsAuthenticator(new TextEncoder().encode(jwt.creds(user).text)),
          inboxPrefix: inboxPrefixOf(jwt.creds(user).name),
        }
      : secured
        ? { user, pass: password(user), inboxPrefix: inboxPrefixOf(user) }
        : {};
  // A given file gets a free monitoring port too (it may name one).
  const given = options.configFile ? ["-c", options.configFile, "-m", String(await freePort())] : [];
  let child: ChildProcess | undefined;
  const launch = async () => {
    if (secured) writeConfig();
    const args = secured ? ["-c", configFile] : [...given, "-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store];
    child = spawn(NATS_SERVER_BINARY, args, { stdio: "ignore", env: { ...process.env, ...options.env } });
    await waitFor(`nats-server listening on ${port}`, () => listening(port), { timeoutMs: 10_000 });
    // Serving clients, so its signal handlers are installed too (a SIGHUP before that ends it).
    if (secured) await untilConnects(NATS_USERS.admin);
  };
  const untilConnects = (user: string) =>
    waitFor(
      `nats-server to let ${user} connect`,
      async () => {
        await (await natsConnect({ servers: url, ...connectOptions(user) })).close();
        return true;
      },
      { timeoutMs: 10_000 },
    );
  let reloads: Promise<void> = Promise.resolve();
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, "exit");
    running.kill("SIGTERM");
    const timer = setTimeout(() => running.kill("SIGKILL"), 2_000);
    await exited;
    clearTimeout(timer);
  };
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= stop().then(() => rmSync(store, { recursive: true, force: true }));
    return closed;
  };
  await launch();
  return {
    url,
    port,
    close,
    stop,
    restart: launch,
    [Symbol.asyncDispose]: close,
    secured: Boolean(secured),
    ...(jwt ? { trustDir: jwt.trustDir } : {}),
    pid: () => child?.pid,
    connectOptions,
    env: (user): Record<string, string> =>
      jwt
        ? { LSPMESH_NATS_CREDS: jwt.creds(user).file }
        : secured
          ? { LSPMESH_NATS_USER: user, LSPMESH_NATS_PASSWORD: password(user) }
          : {},
    async addRunner(id, tenants) {
      if (!secured || runners.some((runner) => runner.id === id)) return;
      runners.push({ id, ...(tenants ? { tenants } : {}) });
      // JWT mode: a credential for its pool, nothing for the server to reload.
      if (jwt) return jwt.addRunner(id, tenants);
      // One reload at a time; the new identity connecting says it is done.
      reloads = reloads.then(async () => {
        writeConfig();
        child?.kill("SIGHUP");
        await untilConnects(NATS_USERS.runner(id)).catch(async () => {
          // Seen once in a busy run: the reload did not take. A restart reads the file anew
          // (streams and buckets are on disk; clients reconnect).
          await stop();
          await launch();
          await untilConnects(NATS_USERS.runner(id));
        });
      });
      await reloads;
    },
  };
}

/** The creds of each identity in JWT mode, minted up front (runners when added), as files in the store. */
async function jwtCredentials(
  store: string,
  tenants: readonly string[],
  runners: ReadonlyArray<{ id: string; tenants?: readonly string[] }>,
) {
  const trust: NatsTrust = await createNatsTrust("lspmesh-test");
  const trustDir = join(store, "trust");
  writeNatsTrust(trustDir, trust);
  mkdirSync(join(store, "creds"), { recursive: true });
  const minted = new Map<string, { name: string; text: string; file: string }>();
  const mint = async (user: string, identity: NatsJwtIdentity) => {
    const credential = await mintNatsUser(trust, identity);
    const file = join(store, "creds", `${user}.creds`);
    writeFileSync(file, credential.creds, { mode: 0o600 });
    minted.set(user, { name: credential.name, text: credential.creds, file });
  };
  /** A runner id is `<pool>.<name>`: its pool's credential (the pool is the id without a dot). */
  const addRunner = async (id: string, served?: readonly string[]) => {
    const pool = id.includes(".") ? id.slice(0, id.indexOf(".")) : id;
    await mint(id, { kind: "runner", pool, ...(served?.length ? { tenants: served } : {}) });
  };
  await mint(NATS_USERS.gateway, { kind: "gateway" });
  await mint(NATS_USERS.admin, { kind: "admin" });
  for (const tenant of tenants) {
    await mint(NATS_USERS.ci(tenant), { kind: "ci", tenant });
    await mint(NATS_USERS.writer(tenant), { kind: "writer", tenant });
  }
  for (const runner of runners) await addRunner(runner.id, runner.tenants);
  return {
    trust,
    trustDir,
    addRunner,
    creds(user: string) {
      const found = minted.get(user);
      if (!found) throw new Error(`no NATS credentials minted for '${user}' (add the runner or tenant first)`);
      return found;
    },
  };
}
