// The gateway's side of direct worker connections (routedByTenant) against real gRPC and a real
// HTTP CONNECT: a "runner" whose relayed service answers "relayed" and whose worker port, after
// checking the secret on the CONNECT, serves "direct:<tenant>" on the tunnelled connection (the
// runner's own test, services/lsp-runner/test/workerConnections.test.ts, checks the real worker).
// A tenant's first call is relayed while its tunnel comes up, the next ones take the tunnel; the
// tunnel carries no credential; a refused tunnel leaves every call relayed; a rotated secret
// opens a new tunnel; calls naming no tenant are relayed.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Socket } from "node:net";
import * as grpc from "@grpc/grpc-js";
import {
  addMultiplexedService,
  type CallContext,
  createMultiplexedClient,
  type ServiceImplementation,
} from "@lspmesh/grpc";
import { Runner, RunnerCalls } from "@lspmesh/proto";
import { waitFor } from "@lspmesh/test-kit";
import { afterEach, expect, test } from "vitest";
import { routedByTenant } from "../src/routing/workerChannels.js";
import { serveRunnerOverGrpc } from "./runnerOverGrpc.js";

type Hover = ServiceImplementation<typeof Runner.method>["hover"];

interface WorkerPort {
  readonly address: string;
  /** The CONNECTs seen: target and the secret they carried. */
  readonly connects: Array<{ target: string; secret: string | undefined }>;
  /** Authorization metadata seen on tunnelled calls (there must be none). */
  readonly credentialsSeen: string[];
  close(): void;
}

const closing: Array<() => void> = [];
afterEach(() => {
  for (const close of closing.splice(0).reverse()) close();
});

/** A worker port: CONNECT checked against `secret()`, then the connection served by a gRPC server here. */
async function serveWorkerPort(secret: () => string): Promise<WorkerPort> {
  const connects: WorkerPort["connects"] = [];
  const credentialsSeen: string[] = [];
  const hover: Hover = async (request, context: CallContext) => {
    const [authorization] = context.metadata.get("authorization");
    if (authorization !== undefined) credentialsSeen.push(String(authorization));
    return { contents: `direct:${request.workspace?.tenant}` };
  };
  const grpcServer = new grpc.Server();
  addMultiplexedService(grpcServer, RunnerCalls, Runner, { hover } as ServiceImplementation<typeof Runner.method>);
  const injector = grpcServer.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  const http: Server = createServer();
  http.on("connect", (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const header = request.headers["proxy-authorization"] ?? "";
    const given = Buffer.from(header.replace(/^Basic /, ""), "base64")
      .toString()
      .split(":")[1];
    connects.push({ target: request.url ?? "", secret: given });
    if (given !== secret()) {
      socket.end("HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) socket.unshift(head);
    injector.injectConnection(socket);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as { port: number }).port;
  return {
    address: `127.0.0.1:${port}`,
    connects,
    credentialsSeen,
    close() {
      http.closeAllConnections();
      http.close();
      injector.destroy();
      grpcServer.forceShutdown();
    },
  };
}

/** The gateway routing to a worker port checking `secret()`; the gateway sends `sent` (default the same). */
async function routed(secret: () => string, sent = secret()) {
  const worker = await serveWorkerPort(secret);
  closing.push(() => worker.close());
  const runner = await serveRunnerOverGrpc({ hover: async () => ({ contents: "relayed" }) });
  closing.push(() => runner.close());
  let authorization = `Bearer ${sent}`;
  const relayed = createMultiplexedClient(
    Runner,
    runner.address,
    grpc.credentials.createInsecure(),
    {},
    {
      calls: RunnerCalls,
    },
  );
  const client = routedByTenant({
    workerAddress: worker.address,
    relayed,
    authorization: () => authorization,
    channelOptions: { "grpc.initial_reconnect_backoff_ms": 100, "grpc.max_reconnect_backoff_ms": 200 },
    interceptors: [],
  });
  closing.push(() => client.close());
  const hover = async (tenant: string) =>
    (
      await client.hover({
        workspace: { tenant, workspace: "web" },
        at: { file: "a.ts", target: { case: "position", value: { line: 1, column: 1 } } },
      })
    ).contents;
  return { worker, hover, rotate: (next: string) => (authorization = `Bearer ${next}`) };
}

test("a tenant's calls are relayed until its tunnel is up, then go through it, carrying no credential", async () => {
  const { worker, hover } = await routed(() => "s3cret");
  expect(await hover("acme")).toBe("relayed");
  await waitFor("acme's calls on its tunnel", async () => (await hover("acme")) === "direct:acme");
  expect(await hover("globex")).toBe("relayed");
  await waitFor("globex's calls on its own tunnel", async () => (await hover("globex")) === "direct:globex");
  expect(await hover("acme")).toBe("direct:acme");
  expect(worker.connects).toEqual([
    { target: "acme.tenants.lspmesh:1", secret: "s3cret" },
    { target: "globex.tenants.lspmesh:1", secret: "s3cret" },
  ]);
  expect(worker.credentialsSeen).toEqual([]);
});

test("a refused tunnel leaves the tenant's calls relayed, answered all the same", async () => {
  const { worker, hover } = await routed(() => "the-runner-holds-this", "the-gateway-sends-that");
  for (let i = 0; i < 5; i++) {
    expect(await hover("acme")).toBe("relayed");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(worker.connects.length).toBeGreaterThan(0);
});

test("a rotated secret opens a new tunnel with it", async () => {
  let secret = "first-secret";
  const { worker, hover, rotate } = await routed(() => secret);
  await waitFor("acme on its tunnel", async () => (await hover("acme")) === "direct:acme");
  secret = "second-secret";
  rotate("second-secret");
  await waitFor("acme on a tunnel with the new secret", async () => (await hover("acme")) === "direct:acme");
  expect(worker.connects.map((connect) => connect.secret)).toEqual(["first-secret", "second-secret"]);
});

test("calls naming no tenant (or not a tenant id) are relayed", async () => {
  const { worker, hover } = await routed(() => "s3cret");
  expect(await hover("")).toBe("relayed");
  expect(await hover("../acme")).toBe("relayed");
  expect(worker.connects).toEqual([]);
});
