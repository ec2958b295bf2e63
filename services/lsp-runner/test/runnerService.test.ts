// The runner as a service on a real nats-server with the real typescript-language-server:
// registry entry with heartbeat, status events, diagnostics on the JetStream stream, the retry
// queue while NATS is away, and a clean close.
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DIAGNOSTICS_STREAM,
  decodeJson,
  diagnosticsSubject,
  encodeJson,
  fileEventsSubject,
  isLive,
  RUNNER_CLAIMS_BUCKET,
  RUNNER_REGISTRY_BUCKET,
  type RunnerRegistryEntry,
  runnerClaimKey,
  type StatusMessage,
  statusWildcard,
} from "@lspmesh/events";
import { type NatsServer, startNatsServer, waitFor } from "@lspmesh/test-kit";
import { type JetStreamManager, jetstreamManager } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, test } from "vitest";
import { storedDiagnostics } from "./natsTesting.js";
import { NatsEventBus } from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner, ws } from "./support/fixtureRunner.js";

const RUNNER_ID = "runner-service-test";
const HEARTBEAT_MS = 200;

let nats: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let bus: NatsEventBus;
let env: FixtureRunner;
let runner: FixtureRunner["runner"];
let client: FixtureRunner["client"];
const statuses: StatusMessage[] = [];

const sha256 = (file: string) =>
  createHash("sha256")
    .update(readFileSync(join(env.dir, file), "utf8"))
    .digest("hex");

beforeAll(async () => {
  nats = await startNatsServer();
  // The observer reconnects forever: the NATS server is stopped and restarted below.
  nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  // A request sent while NATS restarts is lost: it fails after this timeout (ms; the default is
  // 5 000) and the waiting check asks again.
  jsm = await jetstreamManager(nc, { timeout: 1_000 });
  nc.subscribe(statusWildcard(), {
    callback: (_error, message) => {
      statuses.push(decodeJson<StatusMessage>(message.data));
    },
  });
  await nc.flush();
  // A publish lost in the outage fails after timeoutMs; the retry follows retryMs later (ms).
  bus = await NatsEventBus.connect({
    servers: nats.url,
    name: RUNNER_ID,
    timeoutMs: 1_000,
    retryMs: 50,
    reconnectWaitMs: 100,
  });
  env = await startFixtureRunner({
    fixture: "typescript-basic",
    events: bus,
    runnerId: RUNNER_ID,
    advertiseAddress: "runner-0.runners:7421",
    pool: "typescript",
    heartbeatMs: HEARTBEAT_MS,
  });
  ({ runner, client } = env);
});

afterAll(async () => {
  await env?.close();
  await bus?.close();
  await nc?.close();
  await nats?.close();
});

const registry = async (): Promise<KV> => new Kvm(nc).open(RUNNER_REGISTRY_BUCKET);
/** The claim keys the runner holds now. */
const claimKeys = async (): Promise<string[]> => {
  const claims = await new Kvm(nc).open(RUNNER_CLAIMS_BUCKET);
  const keys: string[] = [];
  for await (const key of await claims.keys()) if ((await claims.get(key))?.operation === "PUT") keys.push(key);
  return keys.filter((key) => key.endsWith(`.${RUNNER_ID}`)).sort();
};

const entryOf = async (kv: KV) => {
  const entry = await kv.get(RUNNER_ID);
  return entry?.operation === "PUT" ? decodeJson<RunnerRegistryEntry>(entry.value) : undefined;
};

test("the runner registers in lspmesh-runners and refreshes its entry every heartbeat", async () => {
  const kv = await registry();
  const first = await waitFor("a registry entry", () => entryOf(kv));
  expect(first).toMatchObject({
    v: 1,
    id: RUNNER_ID,
    address: "runner-0.runners:7421",
    // Installed servers only: typescript and python come with npm ci; others where installed.
    languages: expect.arrayContaining(["typescript", "python"]),
    pool: "typescript",
    heartbeatMs: HEARTBEAT_MS,
  });
  expect(first.tenants).toBeUndefined();
  expect(isLive(first)).toBe(true);
  // Serving every tenant, it claims every tenant (written before the entry).
  expect(await claimKeys()).toEqual([runnerClaimKey(undefined, RUNNER_ID)]);
  const refreshed = await waitFor("a refreshed entry", async () => {
    const entry = await entryOf(kv);
    return entry && entry.updatedAt > first.updatedAt ? entry : undefined;
  });
  expect(isLive(refreshed)).toBe(true);
});

test("diagnostics are published to LSPMESH_DIAG under the file's subject, with version, hash and epoch", async () => {
  const answer = await client.diagnostics({ workspace: ws, files: ["src/broken.ts"], waitMs: 15_000 });
  expect(answer.files[0]).toMatchObject({ fresh: true, version: 1 });

  const stream = await jsm.streams.info(DIAGNOSTICS_STREAM);
  expect(stream.config.subjects).toEqual(["lspmesh.diag.>"]);
  expect(stream.config.max_msgs_per_subject).toBe(1);

  const stored = await waitFor("broken.ts diagnostics on the stream", async () => {
    const found = await storedDiagnostics(jsm, ws.tenant, ws.workspace, "src/broken.ts");
    return found?.message.version === 1 ? found : undefined;
  });
  expect(stored.subject).toBe(diagnosticsSubject(ws.tenant, ws.workspace, "src/broken.ts"));
  expect(stored.message).toMatchObject({
    v: 1,
    tenant: "local",
    workspace: "default",
    file: "src/broken.ts",
    language: "typescript",
    version: 1,
    contentSha256: sha256("src/broken.ts"),
    diagnostics: [
      {
        range: { start: { line: 3, column: 14 } },
        severity: 1,
        code: "2322",
        source: "typescript",
        message: expect.stringContaining("not assignable to type 'number'"),
      },
    ],
  });
  expect(stored.message.epoch).toBeGreaterThan(0);
  expect(stored.message.epoch).toBeLessThanOrEqual(Number(answer.epoch));
});

test("status events follow the session: starting, then ready, from this runner", async () => {
  const seen = await waitFor("a ready status event", () => {
    const states = statuses.filter((s) => s.runner === RUNNER_ID).map((s) => s.state);
    return states.includes("ready") ? states : undefined;
  });
  expect(seen[0]).toBe("starting");
  expect(statuses[0]).toMatchObject({ v: 1, tenant: "local", workspace: "default", language: "typescript" });
  const kv = await registry();
  await waitFor("load 1 in the registry", async () => (await entryOf(kv))?.load === 1);
});

test("while NATS is away, new diagnostics wait in the retry queue and are delivered when it is back", async () => {
  await nats.stop();
  writeFileSync(join(env.dir, "src/broken.ts"), 'export const flag: boolean = "no";\n');

  // The runner keeps answering without NATS.
  const answer = await client.diagnostics({ workspace: ws, files: ["src/broken.ts"], waitMs: 15_000 });
  expect(answer.files[0]).toMatchObject({ fresh: true, version: 2 });
  expect(answer.files[0]?.diagnostics.map((d) => [d.code, d.range?.start?.line])).toEqual([["2322", 1]]);
  expect(bus.pendingDiagnostics).toBeGreaterThan(0);

  await nats.restart();
  const stored = await waitFor("the queued diagnostics on the stream after NATS came back", async () => {
    const found = await storedDiagnostics(jsm, ws.tenant, ws.workspace, "src/broken.ts");
    return found?.message.version === 2 ? found : undefined;
  });
  expect(stored.message).toMatchObject({
    version: 2,
    contentSha256: sha256("src/broken.ts"),
    diagnostics: [{ code: "2322", range: { start: { line: 1, column: 14 } } }],
  });
  expect(stored.message.epoch).toBeGreaterThan(0);
  await waitFor("an empty retry queue", () => bus.pendingDiagnostics === 0);
  // The heartbeat resumes too.
  const kv = await registry();
  await waitFor("a live entry after the outage", async () => {
    const entry = await entryOf(kv);
    return entry !== undefined && isLive(entry);
  });
});

test("a deleted file's diagnostics are replaced by a deleted message (runners hold no purge right)", async () => {
  await waitFor("broken.ts diagnostics on the stream", async () =>
    Boolean((await storedDiagnostics(jsm, ws.tenant, ws.workspace, "src/broken.ts"))?.message.diagnostics.length),
  );
  rmSync(join(env.dir, "src/broken.ts"));
  await nc.request(
    fileEventsSubject(ws.tenant, ws.workspace),
    encodeJson({ v: 1, changes: [{ file: "src/broken.ts", kind: "deleted" }] }),
    { timeout: 10_000 },
  );
  const stored = await waitFor("the deleted message on the stream", async () => {
    const found = await storedDiagnostics(jsm, ws.tenant, ws.workspace, "src/broken.ts");
    return found?.message.deleted ? found : undefined;
  });
  expect(stored.message).toMatchObject({ v: 1, file: "src/broken.ts", diagnostics: [], version: 0, contentSha256: "" });
});

test("a clean close removes the registry entry and its claims, and reports the session stopped", async () => {
  const pids = await runner.sessions.pids();
  await runner.close();
  const kv = await registry();
  expect(await entryOf(kv)).toBeUndefined();
  expect(await claimKeys()).toEqual([]);
  await waitFor(
    "a stopped status event",
    () => statuses.filter((s) => s.runner === RUNNER_ID).at(-1)?.state === "stopped",
  );
  for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
});
