// The registry reader against a real nats-server: entries written to the KV bucket the way
// runners heartbeat them (RunnerRegistryEntry), liveness judged by updatedAt.
import { encodeJson, RUNNER_REGISTRY_BUCKET, type RunnerRegistryEntry } from "@lspmesh/events";
import { type NatsServer, startNatsServer } from "@lspmesh/test-kit";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openNatsRunnerRegistry } from "../src/routing/natsRegistry.js";
import type { OutageTolerantDirectory } from "../src/routing/registryOutage.js";

let nats: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
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

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test("entries already in the bucket load before open resolves; new ones, changes and deletes follow", async () => {
  const kv = await new Kvm(nc).create(RUNNER_REGISTRY_BUCKET, { history: 1 });
  await kv.put("runner-a", encodeJson(entry("runner-a")));
  const problems: string[] = [];
  let directory: OutageTolerantDirectory | undefined;
  try {
    directory = await openNatsRunnerRegistry({ servers: nats.url, onProblem: (message) => problems.push(message) });
    expect(directory.loaded).toBe(true);
    expect(directory.live().map((r) => r.id)).toEqual(["runner-a"]);

    await kv.put("runner-b", encodeJson(entry("runner-b", { tenants: ["acme"], languages: ["python"] })));
    await until(() => directory!.live().length === 2, "runner-b");
    expect(directory.live().find((r) => r.id === "runner-b")).toMatchObject({
      tenants: ["acme"],
      languages: ["python"],
    });

    // A runner that stops heartbeating is dead after 3 heartbeats, without any KV event.
    await kv.put("runner-a", encodeJson(entry("runner-a", { updatedAt: Date.now() - 3_500 })));
    await until(() => !directory!.live().some((r) => r.id === "runner-a"), "runner-a stale");
    expect(directory.known().find((r) => r.id === "runner-a")?.live).toBe(false);

    await kv.delete("runner-b");
    await until(() => directory!.known().every((r) => r.id !== "runner-b"), "runner-b deleted");

    await kv.put("garbage", new TextEncoder().encode("{not json"));
    await kv.put("old", encodeJson({ ...entry("old"), v: 2 }));
    await until(() => problems.length >= 2, "problems reported");
    expect(problems.join("\n")).toMatch(/not JSON[\s\S]*unsupported version/);
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
    await kv.put("late", encodeJson(entry("late")));
    await until(() => directory.live().length === 1, "late runner");
  } finally {
    await directory.close();
  }
});

test("the registry keeps following across a NATS restart", async () => {
  const directory = await openNatsRunnerRegistry({ servers: nats.url });
  try {
    const kv = await new Kvm(nc).open(RUNNER_REGISTRY_BUCKET);
    await kv.put("before", encodeJson(entry("before")));
    await until(() => directory.live().some((r) => r.id === "before"), "the entry before the restart");
    await nats.stop();
    await nats.restart();
    // Both connections reconnect by themselves (the store survived the restart).
    let written = false;
    for (let i = 0; i < 100 && !written; i++) {
      written = await kv.put("after", encodeJson(entry("after"))).then(
        () => true,
        () => false,
      );
      if (!written) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(written).toBe(true);
    for (let i = 0; i < 200 && !directory.live().some((r) => r.id === "after"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(directory.live().map((r) => r.id)).toContain("after");
  } finally {
    await directory.close();
  }
}, 60_000);
