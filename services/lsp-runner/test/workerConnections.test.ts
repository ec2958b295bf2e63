// Direct worker connections (LSPMESH_WORKER_LISTEN): a gateway's HTTP CONNECT naming a tenant,
// with the runner's secret, becomes a gRPC connection served by that tenant's confined worker
// itself. Checked against the real supervisor, workers (Landlock, and bubblewrap where it works)
// and typescript-language-server: the answers equal the relayed ones; the connection serves its
// own tenant only and carries no credential; refusals are HTTP statuses; a killed worker's
// connection fails and the next one is served by its replacement; edits answer once announced.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { createClient, createMultiplexedClient, type ServiceClient, type ServiceError } from "@lspmesh/grpc";
import { Runner, RunnerCalls } from "@lspmesh/proto";
import { chownTree, waitFor } from "@lspmesh/test-kit";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { type RunningRunner, startRunner } from "../src/startRunner.js";
import { WORKER_TENANTS, workerConfinements, workerProcessIn, writeTenantWorkspaces } from "./support/workerModes.js";

const SECRET = "worker-connections-secret-0123456789";

type RunnerClient = ServiceClient<typeof Runner.method>;

describe.each(workerConfinements("workerConnections", "landlock"))(
  "direct worker connections ($mode)",
  ({ sandbox, workerUser }) => {
    let root: string;
    let volume: string;
    let runner: RunningRunner;
    let relayed: RunnerClient;
    const opened: RunnerClient[] = [];

    /** A client whose calls travel on a connection to `tenant`'s worker, as a gateway opens one. */
    const direct = (tenant: string, secret = SECRET): RunnerClient => {
      const client = createMultiplexedClient(
        Runner,
        runner.workerAddress ?? "",
        grpc.credentials.createInsecure(),
        {
          "grpc.http_connect_target": `dns:///${tenant}.tenants.lspmesh:1`,
          "grpc.http_connect_creds": `lspmesh:${secret}`,
          "grpc.enable_http_proxy": 0,
        },
        { calls: RunnerCalls },
      );
      opened.push(client);
      return client;
    };
    const hoverRequest = (tenant: string, file = "src/main.ts", line = 1, column = 14) => ({
      workspace: { tenant, workspace: "web" },
      at: { file, target: { case: "position" as const, value: { line, column } } },
    });

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), "lspmesh-worker-connections-"));
      chmodSync(root, 0o755);
      volume = join(root, "volume");
      writeTenantWorkspaces(volume, (tenant) => ({
        "main.ts": `export const owner = "${tenant}";\nexport const again = owner;\n`,
      }));
      const secretFile = join(root, "grpc-secret");
      writeFileSync(secretFile, SECRET, { mode: 0o600 });
      if (workerUser) for (const tenant of WORKER_TENANTS) chownTree(join(volume, tenant), workerUser);
      runner = await startRunner({
        listen: "127.0.0.1:0",
        workerListen: "127.0.0.1:0",
        grpcAuth: { secretFile },
        workspaces: { root: volume },
        workers: "auto",
        sandbox,
        stateDir: join(root, "state"),
        metricsListen: "127.0.0.1:0",
        ...(workerUser ? { workerUser } : {}),
      });
      relayed = createClient(Runner, runner.address, grpc.credentials.createInsecure(), {}, () => ({
        authorization: `Bearer ${SECRET}`,
      }));
    }, 120_000);

    afterEach(() => {
      for (const client of opened.splice(0)) client.close();
    });

    afterAll(async () => {
      relayed?.close();
      await runner?.close();
      rmSync(root, { recursive: true, force: true });
    });

    test("the runner offers the port, and a tenant's connection is answered by its worker as relayed calls are", async () => {
      expect(runner.workerAddress).toMatch(/^127\.0\.0\.1:\d+$/);
      const acme = direct("acme");
      const answer = await acme.hover(hoverRequest("acme"), { timeoutMs: 60_000 });
      expect(answer.contents).toContain("owner");
      expect(await relayed.hover(hoverRequest("acme"), { timeoutMs: 60_000 })).toEqual(answer);
      const definition = await acme.findDefinition(hoverRequest("acme", "src/main.ts", 2, 22), { timeoutMs: 60_000 });
      expect(definition.locations.map((location) => [location.file, location.range?.start?.line])).toEqual([
        ["src/main.ts", 1],
      ]);
      const metrics = await fetch(`http://${runner.metricsAddress}/metrics`).then((response) => response.text());
      expect(metrics).toMatch(/^lspmesh_runner_worker_connections_total [1-9]\d*$/m);
    });

    test("a tenant's connection serves that tenant only: another tenant's workspace is unknown on it", async () => {
      const failure = (await direct("acme")
        .hover(hoverRequest("globex"), { timeoutMs: 60_000 })
        .catch((error: unknown) => error)) as ServiceError;
      expect(failure.code).toBe(grpc.status.NOT_FOUND);
      expect(failure.details).toContain("unknown workspace");
      // The same call relayed is globex's own answer: the refusal above is the connection's tenant.
      expect((await relayed.hover(hoverRequest("globex"), { timeoutMs: 60_000 })).contents).toContain("owner");
    });

    test("refusals: a wrong secret, a tenant not served here, a target that is no tenant, anything but CONNECT", async () => {
      const [host, port] = (runner.workerAddress ?? "").split(":");
      const connect = (target: string, secret: string) =>
        new Promise<number>((resolve, reject) => {
          const outgoing = request({
            host,
            port: Number(port),
            method: "CONNECT",
            path: target,
            headers: { "proxy-authorization": `Basic ${Buffer.from(`lspmesh:${secret}`).toString("base64")}` },
          });
          outgoing.once("connect", (response, socket) => {
            socket.destroy();
            resolve(response.statusCode ?? 0);
          });
          outgoing.once("response", (response) => resolve(response.statusCode ?? 0));
          outgoing.once("error", reject);
          outgoing.end();
        });
      expect(await connect("acme.tenants.lspmesh:1", "not-the-secret")).toBe(407);
      expect(await connect("initech.tenants.lspmesh:1", SECRET)).toBe(404);
      expect(await connect("../acme.tenants.lspmesh:1", SECRET)).toBe(400);
      expect(await connect("example.com:443", SECRET)).toBe(400);
      expect(await connect("acme.tenants.lspmesh:1", SECRET)).toBe(200);
      const plain = await fetch(`http://${runner.workerAddress}/`);
      expect(plain.status).toBe(405);
      // A gateway's channel with the wrong secret fails to connect: its calls are UNAVAILABLE.
      const wrong = (await direct("acme", "not-the-secret")
        .hover(hoverRequest("acme"), { timeoutMs: 5_000 })
        .catch((error: unknown) => error)) as ServiceError;
      expect(wrong.code).toBe(grpc.status.UNAVAILABLE);
    });

    test("a killed worker's connection fails; the next connection is served by its replacement", async () => {
      const acme = direct("acme");
      expect((await acme.hover(hoverRequest("acme"), { timeoutMs: 60_000 })).contents).toContain("owner");
      const workerOf = () => workerProcessIn(join(volume, "acme"));
      const worker = await waitFor("acme's worker", workerOf);
      process.kill(worker, "SIGKILL");
      // The channel reconnects: its next CONNECT starts a new worker, which answers.
      const again = await waitFor("acme answered on a new connection", () =>
        acme.hover(hoverRequest("acme"), { timeoutMs: 60_000 }).catch(() => undefined),
      );
      expect(again.contents).toContain("owner");
      expect(await workerOf()).not.toBe(worker);
    });

    test("an edit on the connection changes the file and answers", async () => {
      const globex = direct("globex");
      const renamed = await globex.renameSymbol(
        { ...hoverRequest("globex", "src/main.ts", 1, 14), newName: "holder", apply: true },
        { timeoutMs: 60_000 },
      );
      expect(renamed.applied).toBe(true);
      expect(readFileSync(join(volume, "globex", "web", "src", "main.ts"), "utf8")).toContain(
        "export const again = holder;",
      );
    });

    test("the runner stops while a gateway holds connections to its workers: the drain does not wait on them", async () => {
      const acme = direct("acme");
      expect((await acme.hover(hoverRequest("acme"), { timeoutMs: 60_000 })).contents).toContain("owner");
      const started = Date.now();
      await runner.close(2_000);
      // The grace (2 s) plus the workers' own stop, not for ever: Node counts a handed-over socket as
      // the listener's until the worker closes it, which it does only when it stops.
      expect(Date.now() - started).toBeLessThan(15_000);
      const after = (await acme
        .hover(hoverRequest("acme"), { timeoutMs: 5_000 })
        .catch((error: unknown) => error)) as ServiceError;
      expect(after.code).toBe(grpc.status.UNAVAILABLE);
    });
  },
);
