// The registry reader against a real nats-server: entries written to the KV bucket the way
// runners heartbeat them (RunnerRegistryEntry, after their claims), liveness judged by updatedAt.
import {
  encodeJson,
  RUNNER_CLAIMS_BUCKET,
  RUNNER_REGISTRY_BUCKET,
  type RunnerRegistryEntry,
  runnerClaimKey,
} from "@lspmesh/events";
import { type NatsServer, startNatsServer, waitFor } from "@lspmesh/test-kit";
import { type KV, Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openNatsRunnerRegistry } from "../src/routing/natsRegistry.js";
import type { OutageTolerantDirectory } from "../src/routing/registryOutage.js";

let nats: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  // The test's own client reconnects at once after the restart below (the default pause is 2 s);
  // the directory under test keeps the production settings.
  nc = await connect({ servers: nats.url, reconnectTimeWait: 100 });
});

afterAll(async () => {
  await nc?.close();
  await nats?.close();
});

function entry(id: string, overrides: Partial<RunnerRegistryEntry> = {}): RunnerRegistryEntry {
  return {
    v: 1,
    id,
    address: `127.0.0.1:${7400 + id.length}`,
    languages: ["typescript"],
    pool: "typescript",
    load: 0,
    updatedAt: Date.now(),
    heartbeatMs: 1000,
    ...overrides,
  };
}

/** Writes an entry as a runner does: its claims first (every tenant it lists, or `_any`), then the entry. */
async function register(registry: KV, value: RunnerRegistryEntry, options?: { timeout: number }): Promise<void> {
  const claims = await new Kvm(nc).create(RUNNER_CLAIMS_BUCKET, { history: 1 });
  for (const tenant of value.tenants ?? [undefined])
    await claims.put(runnerClaimKey(tenant, value.id), encodeJson({ v: 1 }), options);
  await registry.put(value.id, encodeJson(value), options);
}

test("entries already in the bucket load before open resolves; new ones, changes and deletes follow", async () => {
  const kv = await new Kvm(nc).create(RUNNER_REGISTRY_BUCKET, { history: 1 });
  await register(kv, entry("runner-a"));
  const problems: string[] = [];
  let directory: OutageTolerantDirectory | undefined;
  try {
    directory = await openNatsRunnerRegistry({ servers: nats.url, onProblem: (message) => problems.push(message) });
    expect(directory.loaded).toBe(true);
    expect(directory.live().map((r) => r.id)).toEqual(["runner-a"]);

    await register(kv, entry("runner-b", { tenants: ["acme"], languages: ["python"] }));
    await waitFor("runner-b", () => directory!.live().length === 2);
    expect(directory.live().find((r) => r.id === "runner-b")).toMatchObject({
      tenants: ["acme"],
      languages: ["python"],
    });

    // A runner that stops heartbeating is dead after 3 heartbeats, without any KV event.
    await register(kv, entry("runner-a", { updatedAt: Date.now() - 3_500 }));
    await waitFor("runner-a stale", () => !directory!.live().some((r) => r.id === "runner-a"));
    expect(directory.known().find((r) => r.id === "runner-a")?.live).toBe(false);

    await kv.delete("runner-b");
    await waitFor("runner-b deleted", () => directory!.known().every((r) => r.id !== "runner-b"));

    await kv.put("garbage", new TextEncoder().encode("{not json"));
    await kv.put("old", encodeJson({ ...entry("old"), v: 2 }));
    // Other problems may come first (runner-b's entry seen before its claim): wait for these two.
    const reported = (pattern: RegExp) => problems.some((problem) => pattern.test(problem));
    await waitFor("problems reported", () => reported(/not JSON/) && reported(/unsupported version/));
    expect(directory.known().map((r) => r.id)).toEqual(["runner-a"]);
  } finally {
    await directory?.close();
    await kv.destroy();
  }
});

test("a gateway may start before any runner: the bucket is created and the directory is empty", async () => {
  const directory = await openNatsRunnerRegistry({ servers: nats.url });
  try {
    expect(directory.loaded).toBe(true);
    expect(directory.live()).toEqual([]);
    const kv = await new Kvm(nc).open(RUNNER_REGISTRY_BUCKET);
    await register(kv, entry("late"));
    await waitFor("late runner", () => directory.live().length === 1);
  } finally {
    await directory.close();
  }
});

test("the registry keeps following across a NATS restart", async () => {
  const directory = await openNatsRunnerRegistry({ servers: nats.url });
  try {
    const kv = await new Kvm(nc).open(RUNNER_REGISTRY_BUCKET);
    await register(kv, entry("before"));
    await waitFor("the entry before the restart", () => directory.live().some((r) => r.id === "before"));
    await nats.stop();
    await nats.restart();
    // Both connections reconnect by themselves (the store survived the restart). A put sent
    // before the test's client is back times out: short (0.5 s, default 5 s), and tried again.
    await waitFor("a put after the restart", () => register(kv, entry("after"), { timeout: 500 }).then(() => true));
    await waitFor("the entry written after the restart", () => directory.live().some((r) => r.id === "after"));
  } finally {
    await directory.close();
  }
}, 60_000);
