// Starts a real nats-server with JetStream on a free loopback port, for tests.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface NatsServer extends AsyncDisposable {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM, then SIGKILL after 2 s) and removes its store. Idempotent. */
  close(): Promise<void>;
  /** Stops it without removing the store, so a restart on the same port keeps streams and KV. */
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop()). */
  restart(): Promise<void>;
}

const BINARY =
  ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].find(existsSync) ?? "nats-server";

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startNatsServer(): Promise<NatsServer> {
  const port = await freePort();
  const store = mkdtempSync(join(tmpdir(), "lspmesh-nats-"));
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn(BINARY, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store], { stdio: "ignore" });
    await waitForPort(port, 10_000);
  };
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
  return { url: `nats://127.0.0.1:${port}`, port, close, stop, restart: launch, [Symbol.asyncDispose]: close };
}
