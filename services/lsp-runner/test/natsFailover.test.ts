// A NATS node lost under load: three real nats-servers in a cluster, the runner's event bus
// connected to all three with LSPMESH_JETSTREAM_REPLICAS=3, publishing diagnostics (one file each,
// so none replaces another) and heartbeating into the registry while a KV writer puts keys. The
// node leading LSPMESH_DIAG, which also holds the runner's connection, is killed (SIGKILL) in the
// middle: every diagnostics message is stored and reaches a follower, no KV write fails, and a
// registry watch (what gateways follow) never goes three heartbeats without one. In `npm run test:faults` (about 20 s);
// `npm run test:deploy` kills a node of the local deployment the same way.
import {
  DIAGNOSTICS_STREAM,
  DiagnosticsConsumer,
  type DiagnosticsMessage,
  decodeJson,
  diagnosticsWildcard,
  KvFollower,
  NATS_CONNECTION_OPTIONS,
  probedKvWatch,
  RUNNER_REGISTRY_BUCKET,
  type RunnerRegistryEntry,
  retryTransient,
} from "@lspmesh/events";
import { isFaultsTier, type NatsCluster, type NatsClusterNode, startNatsCluster, waitFor } from "@lspmesh/test-kit";
import { type JetStreamManager, jetstreamManager } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterEach, expect, test } from "vitest";
import { RunnerRegistration } from "../src/events/runnerRegistration.js";
import { storedDiagnostics } from "./natsTesting.js";
import { NatsEventBus } from "./runnerInternals.js";

/** Diagnostics messages published, one file each, every PUBLISH_EVERY_MS (about 3 s of load). */
const MESSAGES = 150;
const PUBLISH_EVERY_MS = 20;
/** The node is killed after this many messages. */
const KILL_AFTER = 40;
const KV_WRITES = 60;
/** Registry heartbeat, ms (the default): writes are retried within two, each waiting 2 s for its ack at most. */
const HEARTBEAT_MS = 5_000;
const RUNNER = "failover-runner";

let cluster: NatsCluster | undefined;
let bus: NatsEventBus | undefined;
let registration: RunnerRegistration | undefined;
let admin: NatsConnection | undefined;
let follower: KvFollower | undefined;

afterEach(async () => {
  follower?.close();
  await registration?.close();
  await bus?.close(1_000);
  await admin?.close();
  await cluster?.close();
  [follower, registration, bus, admin, cluster] = [undefined, undefined, undefined, undefined, undefined];
});

const message = (i: number): DiagnosticsMessage => ({
  v: 1,
  tenant: "acme",
  workspace: "web",
  file: `src/file${i}.ts`,
  language: "typescript",
  version: i,
  contentSha256: "0".repeat(64),
  epoch: 1,
  publishedAt: Date.now(),
  diagnostics: [],
});

/** The node named in the stream's cluster info as its leader. */
async function leaderOf(jsm: JetStreamManager, stream: string): Promise<string> {
  return waitFor(`a leader of ${stream}`, async () => (await jsm.streams.info(stream)).cluster?.leader, {
    timeoutMs: 15_000,
  });
}

/** The node a client named `name` is connected to (GET /connz of each node). */
async function nodeHolding(nodes: readonly NatsClusterNode[], name: string): Promise<NatsClusterNode> {
  return waitFor(`the node holding ${name}'s connection`, async () => {
    for (const node of nodes) {
      const connz = (await (await fetch(`http://127.0.0.1:${node.monitorPort}/connz`)).json()) as {
        connections?: Array<{ name?: string }>;
      };
      if (connz.connections?.some((c) => c.name === name)) return node;
    }
    return undefined;
  });
}

/** Steps the stream's leader down until `target` leads it (a random peer is elected each time). */
async function moveLeader(nc: NatsConnection, jsm: JetStreamManager, stream: string, target: string): Promise<void> {
  for (let step = 0; step < 12 && (await leaderOf(jsm, stream)) !== target; step++) {
    await nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, undefined, { timeout: 5_000 }).catch(() => {});
    await waitFor(`a new leader of ${stream}`, async () => (await jsm.streams.info(stream)).cluster?.leader, {
      timeoutMs: 15_000,
    });
  }
}

/** Puts KV_WRITES keys, one every 40 ms, each retried while the cluster is between leaders. */
async function writeKeys(kv: KV): Promise<{ written: number; failed: number }> {
  let written = 0;
  let failed = 0;
  for (let i = 0; i < KV_WRITES; i++) {
    await retryTransient(() => kv.put(`key${i}`, String(i))).then(
      () => written++,
      () => failed++,
    );
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  return { written, failed };
}

test.runIf(isFaultsTier())(
  "a killed NATS node (the stream leader, the runner's server) loses no diagnostics and fails no KV write",
  async () => {
    const started = Date.now();
    cluster = await startNatsCluster({ size: 3 });
    const logs: Array<Record<string, unknown>> = [];
    bus = await NatsEventBus.connect({ servers: cluster.url, name: RUNNER, replicas: 3, log: (e) => logs.push(e) });
    admin = await connect({ servers: [...cluster.urls], ...NATS_CONNECTION_OPTIONS });
    const jsm = await jetstreamManager(admin);
    expect((await jsm.streams.info(DIAGNOSTICS_STREAM)).config.num_replicas).toBe(3);
    expect((await jsm.streams.info(`KV_${RUNNER_REGISTRY_BUCKET}`)).config.num_replicas).toBe(3);

    // The beats as NATS acknowledged them: what a follower that is caught up sees. (A follower's own
    // watch may stall while its server is lost and then deliver only the latest beat: that outage is
    // the follower's, which gateways ride out, registryOutage.ts; it is printed, not asserted.)
    const acknowledged: number[] = [];
    const putRunner = bus.putRunner.bind(bus);
    bus.putRunner = async (entry) => {
      await putRunner(entry);
      acknowledged.push(entry.updatedAt);
    };
    const fields = { id: RUNNER, address: "127.0.0.1:1", languages: ["*"], pool: "default", load: 0 };
    registration = new RunnerRegistration(
      bus,
      () => fields,
      HEARTBEAT_MS,
      (e) => logs.push(e),
    );
    await registration.start();
    const kvm = new Kvm(admin);
    const registry = await kvm.open(RUNNER_REGISTRY_BUCKET);
    // As a gateway follows the registry (routing/natsRegistry.ts).
    let lastBeatSeen = 0;
    /** The longest time between two heartbeats the follower saw, ms (printed). */
    let longestBeatGapSeen = 0;
    follower = new KvFollower(
      "registry",
      RUNNER_REGISTRY_BUCKET,
      { watch: () => probedKvWatch(registry, { key: ">" }) },
      (change) => {
        if (change.operation !== "PUT") return;
        const beat = decodeJson<RunnerRegistryEntry>(change.value).updatedAt;
        if (lastBeatSeen > 0) longestBeatGapSeen = Math.max(longestBeatGapSeen, beat - lastBeatSeen);
        lastBeatSeen = beat;
      },
    );
    await follower.start();
    const keys = await kvm.create("failover-test", { history: 1, replicas: 3 });

    // The worst case: the node that leads the stream also holds the runner's connection.
    const victim = await nodeHolding(cluster.nodes, RUNNER);
    await moveLeader(admin, jsm, DIAGNOSTICS_STREAM, victim.name);
    const leader = await leaderOf(jsm, DIAGNOSTICS_STREAM);
    console.log(`cluster up, stream led by ${leader}, runner on ${victim.name}: ${Date.now() - started} ms`);

    // As `lspmesh diagnostics --watch` follows a tenant's diagnostics (DiagnosticsConsumer).
    const received = new Set<string>();
    const consumer = await DiagnosticsConsumer.open(admin, { filter: diagnosticsWildcard("acme"), start: "new" });
    void (async () => {
      for await (const m of consumer) received.add(decodeJson<DiagnosticsMessage>(m.data).file);
    })();

    const writing = writeKeys(keys);
    let killedAt = 0;
    for (let i = 0; i < MESSAGES; i++) {
      bus.publishDiagnostics(message(i));
      if (i === KILL_AFTER) {
        killedAt = Date.now();
        void cluster.node(leader).kill();
      }
      await new Promise((resolve) => setTimeout(resolve, PUBLISH_EVERY_MS));
    }
    const kv = await writing;
    await waitFor("the outbox delivered", () => bus!.pendingDiagnostics === 0, { timeoutMs: 30_000 });
    const deliveredMs = Date.now() - killedAt;
    const newLeader = await leaderOf(jsm, DIAGNOSTICS_STREAM);

    let stored = 0;
    for (let i = 0; i < MESSAGES; i++) {
      const found = await storedDiagnostics(jsm, "acme", "web", `src/file${i}.ts`);
      if (found?.message.version === i) stored++;
    }
    await waitFor(`${MESSAGES} messages received by a follower`, () => received.size === MESSAGES, {
      timeoutMs: 20_000,
    }).catch(() => {});
    await consumer.close();
    const failedBeats = logs.filter((e) => e.msg === "registry heartbeat failed").length;
    // Gateways follow the registry with a watch: it goes on after the kill. The beat looked for is
    // written 10-15 s after the kill (one beat may fail, its retries taking up to 4 s, which delays
    // the next), and the watch may take a probe (2 s) and a reopen to see it: 30 s, not 15.
    await waitFor("a heartbeat seen after the kill", () => lastBeatSeen > killedAt + 2 * HEARTBEAT_MS, {
      timeoutMs: 30_000,
    }).catch((error: Error) => {
      throw new Error(
        `${error.message}: the last beat seen was written ${lastBeatSeen - killedAt} ms after the kill, ${Date.now() - killedAt} ms ago; failed beats ${logs.filter((e) => e.msg === "registry heartbeat failed").length}`,
      );
    });
    /** The longest time between two acknowledged heartbeats, ms: over three beats, gateways drop the runner. */
    const longestBeatGap = Math.max(0, ...acknowledged.slice(1).map((at, i) => at - acknowledged[i]!));
    const keysStored = (await Promise.all([...Array(KV_WRITES).keys()].map((i) => keys.get(`key${i}`)))).filter(
      (entry) => entry?.operation === "PUT",
    ).length;
    console.log(
      `killed ${leader} (new leader ${newLeader}): diagnostics ${stored}/${MESSAGES} stored, ${received.size} received, dropped ${bus.droppedDiagnostics}; ` +
        `KV ${kv.written}/${KV_WRITES} written (${keysStored} stored), ${kv.failed} failed; heartbeats failed ${failedBeats} (longest gap ${longestBeatGap} ms written, ${longestBeatGapSeen} ms seen by the follower); ` +
        `outbox empty ${deliveredMs} ms after the kill; ${Date.now() - started} ms in all`,
    );
    expect(newLeader).not.toBe(leader);
    expect({ stored, received: received.size, dropped: bus.droppedDiagnostics }).toEqual({
      stored: MESSAGES,
      received: MESSAGES,
      dropped: 0,
    });
    expect({ written: kv.written, failed: kv.failed, keysStored }).toEqual({
      written: KV_WRITES,
      failed: 0,
      keysStored: KV_WRITES,
    });
    // A beat may fail while the bucket elects a leader (its retries end after two beats, 10 s);
    // the entry must never go three beats without one, or gateways would drop the runner.
    expect(failedBeats).toBeLessThanOrEqual(1);
    expect(longestBeatGap).toBeLessThan(3 * HEARTBEAT_MS);
  },
  90_000,
);
