// A workspace deleted in the control plane (KV lspmesh-control: `lspmesh admin workspaces remove`)
// while a runner on NATS holds it, the runner logged in as its own tenant-pinned identity (the
// shipped permissions): within 2 s its language server is gone, its symbol index keys are deleted
// and every file it published diagnostics for is cleared; the tenant's other workspace keeps all of
// it. The same with a confined worker per tenant. A tombstone written while the runner was down
// cleans its stored index when it starts again. The identity reads its tenants' records, nothing else.
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import {
  CONTROL_BUCKET,
  controlKeys,
  DIAGNOSTICS_STREAM,
  type DiagnosticsMessage,
  decodeJson,
  diagnosticsWildcard,
  encodeJson,
  symbolIndexBucket,
  symbolIndexStream,
  symbolIndexWorkspaceFilter,
} from "@lspmesh/events";
import { createClient, createMultiplexedClient } from "@lspmesh/grpc";
import { Runner, RunnerCalls } from "@lspmesh/proto";
import {
  chownTree,
  fixturePath,
  isFaultsTier,
  type NatsServer,
  startNatsServer,
  UNPRIVILEGED_USER,
  waitFor,
} from "@lspmesh/test-kit";
import { type JetStreamManager, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterEach, beforeEach, expect, test } from "vitest";
import { landlockAbi } from "../src/confinement/landlock.js";
import { type RunningRunner, startRunner as startPublicRunner } from "../src/startRunner.js";
import {
  LanguageRegistry,
  NatsEventBus,
  type RunnerServerOptions,
  typescriptLanguage,
  VolumeWorkspaceLocator,
} from "./runnerInternals.js";
import { type FixtureRunner, startFixtureRunner } from "./support/fixtureRunner.js";
import { processesInTheseGroups, processesWorkingIn } from "./support/processes.js";

const RUNNER_ID = "runner-deletion-test";
/** A runner identity issued for every tenant. */
const SHARED_RUNNER_ID = "runner-deletion-shared";
const TENANT = "acme";
const web = { tenant: TENANT, workspace: "web" };
const api = { tenant: TENANT, workspace: "api" };
/** What the runner must do after a tombstone, at most, in ms. */
const CLEAN_WITHIN_MS = 2_000;

let nats: NatsServer;
let admin: NatsConnection;
let jsm: JetStreamManager;
let control: KV;
let root: string;
let bus: NatsEventBus | undefined;
let env: FixtureRunner | undefined;
let logs: Array<Record<string, unknown>>;
let supervisor: RunningRunner | undefined;

beforeEach(async () => {
  nats = await startNatsServer({
    secured: { tenants: [TENANT, "globex"], runners: [{ id: RUNNER_ID, tenants: [TENANT] }, { id: SHARED_RUNNER_ID }] },
  });
  admin = await connect({ servers: nats.url, ...nats.connectOptions("admin") });
  jsm = await jetstreamManager(admin);
  control = await new Kvm(admin).create(CONTROL_BUCKET, { history: 5 });
  for (const ref of [web, api])
    await control.put(controlKeys.workspace(ref.tenant, ref.workspace), encodeJson({ v: 1 }));
  root = mkdtempSync(join(tmpdir(), "lspmesh-deletion-"));
  chmodSync(root, 0o755); // tenant workers running as another user reach their tenant's folder
  for (const ref of [web, api])
    cpSync(fixturePath("typescript-basic"), join(root, ref.tenant, ref.workspace), { recursive: true });
  logs = [];
});

afterEach(async () => {
  await env?.close();
  await supervisor?.close();
  await bus?.close();
  env = bus = supervisor = undefined;
  await admin?.close();
  await nats?.close();
  rmSync(root, { recursive: true, force: true });
});

/** The runner as the pinned identity RUNNER_ID, on the volume at `root`. */
async function startRunner(options: Partial<RunnerServerOptions> = {}): Promise<FixtureRunner> {
  env = await startFixtureRunner({
    locator: new VolumeWorkspaceLocator(root),
    events: await connectBus(),
    runnerId: RUNNER_ID,
    tenants: [TENANT],
    languages: new LanguageRegistry([typescriptLanguage()]),
    watchDebounceMs: 20,
    log: (entry) => logs.push(entry),
    ...options,
  });
  return env;
}

async function connectBus(): Promise<NatsEventBus> {
  const { user, pass } = nats.connectOptions(RUNNER_ID);
  bus = await NatsEventBus.connect({
    servers: nats.url,
    name: RUNNER_ID,
    auth: { credentials: { kind: "password", user: user!, password: pass! } },
    log: (entry) => logs.push(entry),
  });
  return bus;
}

/**
 * The live keys of one workspace in the tenant's symbol index bucket, read from the bucket's stream
 * (each subject's last message, skipping delete and purge markers). Not `kv.keys()`: its push consumer
 * counts messages pending when it starts and, when the runner deletes them meanwhile, waits for an
 * idle heartbeat (up to 30 s) instead of ending.
 */
async function indexKeys(ref: typeof web): Promise<string[]> {
  const stream = symbolIndexStream(ref.tenant);
  const prefix = `$KV.${symbolIndexBucket(ref.tenant)}.`;
  const info = await jsm.streams.info(stream, {
    subjects_filter: `${prefix}${symbolIndexWorkspaceFilter(ref.workspace)}`,
  });
  const keys = await Promise.all(
    Object.keys(info.state.subjects ?? {}).map(async (subject) => {
      const last = await jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(() => null);
      const operation = last?.header?.get("KV-Operation");
      return last && operation !== "DEL" && operation !== "PURGE" ? [subject.slice(prefix.length)] : [];
    }),
  );
  return keys.flat().sort();
}

/** The latest diagnostics message of every file of the workspace on LSPMESH_DIAG. */
async function latestDiagnostics(ref: typeof web): Promise<DiagnosticsMessage[]> {
  const info = await jsm.streams.info(DIAGNOSTICS_STREAM, {
    subjects_filter: diagnosticsWildcard(ref.tenant, ref.workspace),
  });
  return Promise.all(
    Object.keys(info.state.subjects ?? {}).map(async (subject) =>
      decodeJson<DiagnosticsMessage>(
        (await jsm.streams.getMessage(DIAGNOSTICS_STREAM, { last_by_subj: subject }))!.data,
      ),
    ),
  );
}

const tombstone = (ref: typeof web) =>
  control.put(
    controlKeys.workspace(ref.tenant, ref.workspace),
    encodeJson({ v: 1, state: "deleted", at: new Date().toISOString() }),
  );

test("a deleted workspace's server, symbol index and diagnostics are gone within 2 s; the tenant's other workspace keeps its own", async () => {
  const { runner, client } = await startRunner();
  const pids = new Map<string, number>();
  for (const ref of [web, api]) {
    const answer = await client.diagnostics({ workspace: ref, files: ["src/broken.ts"], waitMs: 15_000 });
    expect(answer.files[0]?.diagnostics.length).toBeGreaterThan(0);
    await runner.symbolIndexer!.ensure(ref);
    await runner.symbolIndexer!.settled(ref);
    const [session] = await runner.sessions.sessionsOf(ref.tenant, ref.workspace);
    pids.set(ref.workspace, session!.pid!);
  }
  const apiKeys = await indexKeys(api);
  expect(apiKeys).toContain("api.meta");
  expect((await indexKeys(web)).length).toBe(apiKeys.length);
  for (const ref of [web, api])
    await waitFor(`${ref.workspace}'s diagnostics on the stream`, async () =>
      (await latestDiagnostics(ref)).some((message) => message.file === "src/broken.ts" && !message.deleted),
    );
  const webFiles = (await latestDiagnostics(web)).map((message) => message.file);

  const deletedAt = Date.now();
  await tombstone(web);
  await waitFor(
    "web's server gone, its index keys deleted and its diagnostics cleared",
    async () =>
      (await processesInTheseGroups([pids.get("web")!])).length === 0 &&
      (await indexKeys(web)).length === 0 &&
      (await latestDiagnostics(web)).every((message) => message.deleted),
    { timeoutMs: CLEAN_WITHIN_MS },
  );
  const cleanedMs = Date.now() - deletedAt;
  console.log(`workspace deletion: server, index and diagnostics of web gone after ${cleanedMs} ms`);
  expect(cleanedMs).toBeLessThan(CLEAN_WITHIN_MS);
  expect((await latestDiagnostics(web)).map((message) => message.file).sort()).toEqual(webFiles.sort());
  await runner.deletions!.settled();
  expect(logs.filter((entry) => entry.msg === "deleted workspace cleaned up")).toEqual([
    expect.objectContaining({ tenant: TENANT, workspace: "web", servers: 1, indexKeys: apiKeys.length }),
  ]);
  expect(logs).toContainEqual(expect.objectContaining({ msg: "language server stopped", reason: "deleted" }));

  // The runner answers the deleted workspace NOT_FOUND itself, starting nothing again.
  await expect(client.diagnostics({ workspace: web, files: ["src/broken.ts"] })).rejects.toThrow(/was deleted/);
  expect(await runner.sessions.sessionsOf(web.tenant, web.workspace)).toEqual([]);
  // The other workspace: its server, index and diagnostics as they were.
  expect(await processesInTheseGroups([pids.get("api")!])).not.toEqual([]);
  expect(await indexKeys(api)).toEqual(apiKeys);
  expect((await latestDiagnostics(api)).some((message) => message.deleted)).toBe(false);
  expect(
    (await client.diagnostics({ workspace: api, files: ["src/broken.ts"] })).files[0]?.diagnostics.length,
  ).toBeGreaterThan(0);
}, 60_000); // setup: two workspaces diagnosed and indexed (up to 15 s each on a busy machine)

test("a workspace added with create gets its folder; deleted with removeFolder, its folder goes too, and nothing outside it", async () => {
  const { runner, client } = await startRunner({ workspacesRoot: root });
  const task = { tenant: TENANT, workspace: "task-7" };
  const folder = join(root, TENANT, "task-7");
  const addedAt = Date.now();
  await control.put(controlKeys.workspace(TENANT, "task-7"), encodeJson({ v: 1, create: true }));
  await waitFor("task-7's folder made", () => existsSync(folder), { timeoutMs: CLEAN_WITHIN_MS });
  console.log(`workspace folder: created ${Date.now() - addedAt} ms after the record`);
  // The writer fills it; the agent uses it.
  cpSync(fixturePath("typescript-basic"), folder, { recursive: true });
  // A link to the tenant's other workspace inside it: removing task-7 must not follow it.
  symlinkSync(join(root, TENANT, "web"), join(folder, "src", "web-link"));
  const answer = await client.diagnostics({ workspace: task, files: ["src/broken.ts"], waitMs: 15_000 });
  expect(answer.files[0]?.diagnostics.length).toBeGreaterThan(0);

  const deletedAt = Date.now();
  await control.put(
    controlKeys.workspace(TENANT, "task-7"),
    encodeJson({ v: 1, state: "deleted", removeFolder: true, at: new Date().toISOString() }),
  );
  await waitFor("task-7's folder removed", () => !existsSync(folder), { timeoutMs: CLEAN_WITHIN_MS });
  console.log(`workspace folder: removed ${Date.now() - deletedAt} ms after the tombstone`);
  await runner.deletions!.settled();
  expect(await runner.sessions.sessionsOf(TENANT, "task-7")).toEqual([]);
  expect(existsSync(join(root, TENANT, "web", "src", "broken.ts"))).toBe(true);
  expect(readdirSync(join(root, ".lspmesh-trash"))).toEqual([]);
  await expect(client.diagnostics({ workspace: task, files: ["src/broken.ts"] })).rejects.toThrow(/was deleted/);
}, 30_000);

test("a tombstone written while the runner was down deletes the index it stored, once it starts again", async () => {
  // First life: indexes web from the start (no language server), then stops; the index stays.
  const first = await startRunner({ symbolIndex: { workspaces: [web] } });
  await first.runner.symbolIndexer!.settled(web);
  expect(await indexKeys(web)).toContain("web.meta");
  await first.close();
  await bus!.close();
  await tombstone(web);

  const startedAt = Date.now();
  const { runner } = await startRunner();
  await waitFor("web's stored index deleted", async () => (await indexKeys(web)).length === 0, {
    timeoutMs: CLEAN_WITHIN_MS,
  });
  expect(Date.now() - startedAt).toBeLessThan(CLEAN_WITHIN_MS + 1_000);
  await runner.deletions!.settled();
  // Not taken up again afterwards: nothing indexes it.
  await runner.symbolIndexer!.settled(web);
  expect(await indexKeys(web)).toEqual([]);
  // Added again: served again.
  await control.put(controlKeys.workspace(web.tenant, web.workspace), encodeJson({ v: 1 }));
  await waitFor("web served again", () => !runner.deletions!.isDeleted(web.tenant, web.workspace));
}, 30_000);

// Long (a confined worker per tenant started): in `npm run test:faults`.
test.runIf(landlockAbi() > 0 && isFaultsTier())(
  "with a confined worker per tenant, the tenant's worker lets go of a workspace whose record is deleted within 2 s",
  async () => {
    // As root, workers run as an unprivileged user (Landlock alone does not hide /proc/<pid>/environ).
    const workerUser = process.getuid?.() === 0 ? UNPRIVILEGED_USER : undefined;
    if (workerUser) chownTree(join(root, TENANT), workerUser);
    supervisor = await startPublicRunner(
      {
        listen: "127.0.0.1:0",
        workspaces: { root },
        workers: "auto",
        sandbox: "none",
        runnerId: RUNNER_ID,
        tenants: [TENANT],
        stateDir: join(root, ".state"),
        workerListen: "127.0.0.1:0",
        ...(workerUser ? { workerUser } : {}),
      },
      { events: await connectBus(), log: (entry) => logs.push(entry) },
    );
    const client = createClient(Runner, supervisor.address);
    // The same tenant's calls on a connection its worker serves itself (direct worker connections).
    const direct = createMultiplexedClient(
      Runner,
      supervisor.workerAddress ?? "",
      grpc.credentials.createInsecure(),
      { "grpc.http_connect_target": `dns:///${TENANT}.tenants.lspmesh:1`, "grpc.enable_http_proxy": 0 },
      { calls: RunnerCalls },
    );
    try {
      for (const ref of [web, api]) {
        const answer = await client.diagnostics({ workspace: ref, files: ["src/broken.ts"], waitMs: 15_000 });
        expect(answer.files[0]?.diagnostics.length).toBeGreaterThan(0);
        await waitFor(`${ref.workspace} indexed`, async () => (await indexKeys(ref)).includes(`${ref.workspace}.meta`));
        await waitFor(`${ref.workspace}'s diagnostics on the stream`, async () =>
          (await latestDiagnostics(ref)).some((message) => !message.deleted),
        );
      }
      expect(await processesWorkingIn(join(root, TENANT, "web"))).not.toEqual([]);

      // Its record deleted outright (not a tombstone): deleted all the same.
      const deletedAt = Date.now();
      await control.delete(controlKeys.workspace(web.tenant, web.workspace));
      await waitFor(
        "web's server gone, its index keys deleted and its diagnostics cleared",
        async () =>
          (await processesWorkingIn(join(root, TENANT, "web"))).length === 0 &&
          (await indexKeys(web)).length === 0 &&
          (await latestDiagnostics(web)).every((message) => message.deleted),
        { timeoutMs: CLEAN_WITHIN_MS },
      );
      const cleanedMs = Date.now() - deletedAt;
      console.log(`workspace deletion (tenant worker): web gone after ${cleanedMs} ms`);
      expect(cleanedMs).toBeLessThan(CLEAN_WITHIN_MS);
      await expect(client.diagnostics({ workspace: web, files: ["src/broken.ts"] })).rejects.toThrow(/was deleted/);
      await expect(direct.diagnostics({ workspace: web, files: ["src/broken.ts"] })).rejects.toThrow(/was deleted/);
      expect(await processesWorkingIn(join(root, TENANT, "api"))).not.toEqual([]);
      expect(await indexKeys(api)).toContain("api.meta");
      expect((await latestDiagnostics(api)).some((message) => message.deleted)).toBe(false);
      // Added again: served again on the worker's own connection too.
      await control.put(controlKeys.workspace(web.tenant, web.workspace), encodeJson({ v: 1 }));
      const again = await waitFor("web served again on the direct connection", () =>
        direct.diagnostics({ workspace: web, files: ["src/broken.ts"], waitMs: 15_000 }).catch(() => undefined),
      );
      expect(again.files[0]?.diagnostics.length).toBeGreaterThan(0);
    } finally {
      client.close();
      direct.close();
    }
  },
  60_000,
);

test("the runner's identity follows only its tenants' workspace records: no other tenant's, no API keys, no writes", async () => {
  await control.put(controlKeys.apiKey(TENANT, "k1"), encodeJson({ v: 1, sha256: "0".repeat(64), scopes: [] }));
  const nc = await connect({ servers: nats.url, ...nats.connectOptions(RUNNER_ID) });
  try {
    const kv = await new Kvm(jetstream(nc, { timeout: 1_000 })).open(CONTROL_BUCKET);
    await kv.status();
    const own = await kv.watch({ key: controlKeys.tenantWorkspaces(TENANT) });
    const seen: string[] = [];
    for await (const entry of own) {
      seen.push(entry.key);
      if (seen.length === 2) break;
    }
    expect(seen.sort()).toEqual(["workspaces.acme.api", "workspaces.acme.web"]);
    for (const key of [controlKeys.tenantWorkspaces("globex"), "keys.>", ">"])
      await expect(kv.watch({ key }), key).rejects.toThrow(/Permissions Violation/);
    await expect(kv.get(controlKeys.apiKey(TENANT, "k1"))).rejects.toThrow(/Permissions Violation/);
    await expect(kv.put(controlKeys.workspace(TENANT, "web"), encodeJson({ v: 1 }))).rejects.toThrow(
      /Permissions Violation/,
    );
  } finally {
    await nc.close();
  }
  // Issued for every tenant: every tenant's workspace records, still no API keys.
  const shared = await connect({ servers: nats.url, ...nats.connectOptions(SHARED_RUNNER_ID) });
  try {
    const kv = await new Kvm(jetstream(shared, { timeout: 1_000 })).open(CONTROL_BUCKET);
    const all = await kv.watch({ key: "workspaces.>" });
    for await (const entry of all) {
      expect(entry.key).toMatch(/^workspaces\./);
      break;
    }
    await expect(kv.watch({ key: "keys.>" })).rejects.toThrow(/Permissions Violation/);
  } finally {
    await shared.close();
  }
}, 30_000);
