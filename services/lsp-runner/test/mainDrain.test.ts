// The runner's composition root (dist/main.js, configured by LSPMESH_* variables) on a real
// nats-server: it registers, and on SIGTERM finishes the request in flight, stops its language
// servers, removes its registry entry, reports the session stopped and exits 0.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  decodeJson,
  RUNNER_REGISTRY_BUCKET,
  type RunnerRegistryEntry,
  type StatusMessage,
  statusWildcard,
} from "@lspmesh/events";
import { createClient } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import { fixturePath, type NatsServer, startNatsServer, waitFor } from "@lspmesh/test-kit";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, test } from "vitest";
import { processesWorkingIn } from "./support/processes.js";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const FIXTURE = fixturePath("typescript-basic");
const RUNNER_ID = "drain-test";

let nats: NatsServer;
let nc: NatsConnection;
let root: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run 'npm run build -w @lspmesh/lsp-runner' first`);
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  root = mkdtempSync(join(tmpdir(), "lspmesh-drain-"));
  cpSync(FIXTURE, join(root, "acme", "web"), { recursive: true });
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await nc?.close();
  await nats?.close();
  rmSync(root, { recursive: true, force: true });
});

test("SIGTERM drains: the request in flight is answered, servers stop, the entry goes, exit 0", async () => {
  const statuses: StatusMessage[] = [];
  nc.subscribe(statusWildcard(), {
    callback: (_error, message) => {
      statuses.push(decodeJson<StatusMessage>(message.data));
    },
  });
  await nc.flush();
  child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      LSPMESH_LISTEN: "127.0.0.1:0",
      LSPMESH_WORKSPACES_ROOT: root,
      LSPMESH_NATS_URL: nats.url,
      LSPMESH_RUNNER_ID: RUNNER_ID,
      LSPMESH_POOL: "typescript",
      LSPMESH_TENANTS: "acme, other",
      LSPMESH_HEARTBEAT_MS: "500",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const logs: Array<Record<string, unknown>> = [];
  createInterface({ input: child.stderr! }).on("line", (line) => logs.push(JSON.parse(line)));
  const exited = once(child, "exit");

  const listening = await waitFor("the runner to listen", () => logs.find((entry) => entry.msg === "runner listening"));
  const kv = await new Kvm(nc).open(RUNNER_REGISTRY_BUCKET);
  const entry = await waitFor("the registry entry", async () => (await kv.get(RUNNER_ID))?.json<RunnerRegistryEntry>());
  expect(entry).toMatchObject({ id: RUNNER_ID, pool: "typescript", tenants: ["acme", "other"], heartbeatMs: 500 });

  const client = createClient(Runner, String(listening.address));
  try {
    // The first request starts the language server; SIGTERM arrives while it is in flight.
    const inFlight = client.findDefinition({
      workspace: { tenant: "acme", workspace: "web" },
      at: {
        file: "src/main.ts",
        target: { case: "symbol", value: { name: "makeGreeting", lineHint: 4, occurrence: 0 } },
      },
    });
    await waitFor("a session", () => statuses.some((s) => s.runner === RUNNER_ID && s.state === "starting"));
    child.kill("SIGTERM");

    const answer = await inFlight;
    expect(answer.locations.map((l) => `${l.file}:${l.range?.start?.line}`)).toEqual(["src/greeter.ts:14"]);
    const [code] = await exited;
    expect(code).toBe(0);
  } finally {
    client.close();
  }

  expect((await kv.get(RUNNER_ID))?.operation).not.toBe("PUT");
  // The runner has exited: its last status is in (or never comes). What it said and published is
  // in the failure message, so a failure here can be told apart (not published, or published out of order).
  await waitFor(
    "a stopped status event",
    () => statuses.filter((s) => s.runner === RUNNER_ID).at(-1)?.state === "stopped",
    { timeoutMs: 5_000 },
  ).catch((error: Error) => {
    const seen = statuses.map((s) => `${s.runner}/${s.language}:${s.state}`).join(", ");
    const said = logs.map((entry) => `${entry.msg}${entry.error ? ` (${entry.error})` : ""}`).join(" | ");
    throw new Error(`${error.message}; statuses: ${seen}; runner log: ${said}`);
  });
  expect(logs.map((entry) => entry.msg)).toEqual(expect.arrayContaining(["draining", "drained"]));
  expect(await processesWorkingIn(join(root, "acme", "web"))).toEqual([]);
});

test("a tenant outside LSPMESH_TENANTS is answered like a missing workspace", async () => {
  const { TenantAllowlistLocator } = await import("../src/workspace/tenantAllowlist.js");
  const { VolumeWorkspaceLocator } = await import("../src/workspace/workspaceLocator.js");
  cpSync(FIXTURE, join(root, "stranger", "web"), { recursive: true });
  const locator = new TenantAllowlistLocator(new VolumeWorkspaceLocator(root), ["acme"]);
  await expect(locator.locate("acme", "web")).resolves.toBe(join(root, "acme", "web"));
  await expect(locator.locate("stranger", "web")).rejects.toMatchObject({
    code: "NOT_FOUND",
    message: "unknown workspace 'web': check the workspace id",
  });
});
