// Rollouts that keep servers warm (docs/architecture.md, "Handoff"), every part a real process:
// nats-server, a gateway, two runners. A workspace is warm on runner A, its HRW owner; A gets
// SIGTERM under a stream of find_definition calls through the gateway. Without handoff
// (LSPMESH_HANDOFF=0) the calls that reach B first wait for B's TypeScript server to start; with
// it, B warms the session while A still answers, and no call waits. Either way no call fails.
// Run by `npm run test:faults`: the rollout with and without handoff, and A coming back (its pod
// replaced): with handoff it warms what it will own before it registers. A call is cold when it
// took more than a quarter of the rollout's first call (coldThresholdFor).
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NATS_USERS, RUNNER_REGISTRY_BUCKET, type RunnerRegistryEntry, rankByHrw } from "@lspmesh/events";
import {
  fixturePath,
  type GatewayProcess,
  isFaultsTier,
  type NatsServer,
  type StreamSummary,
  startCallStream,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  summarizeStream,
  waitFor,
  writeTenancyFiles,
} from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, test } from "vitest";

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

const KEY = { tenant: "acme", workspace: "web", language: "typescript" };
const CALL = { workspace: "web", file: "src/main.ts", symbol: "makeGreeting", line: 4 };
/** A killed or drained runner's entry is judged by 3 heartbeats; the warm list is written at each. */
const HEARTBEAT_MS = 1_000;
/**
 * The runners' drain (LSPMESH_DRAIN_MS) and handoff budget (LSPMESH_HANDOFF_MS), ms: a cold
 * TypeScript session (worker process, server, project) has taken 9–22 s on a busy 2-core machine.
 */
const DRAIN_MS = 35_000;
const HANDOFF_MS = 30_000;
/** Steady state measured before the SIGTERM, and calls kept going after A exited, ms. */
const STEADY_MS = 1_500;
const TAIL_MS = 2_000;

let root: string;
let nats: NatsServer;
let admin: NatsConnection;
let gateway: GatewayProcess;
let client: Client;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-handoff-"));
  cpSync(fixturePath("typescript-basic"), join(root, "workspaces", "acme", "web"), { recursive: true });
  const tenancy = writeTenancyFiles(root, {
    tenants: { acme: { workspaces: ["web"], limits: { callsPerSecond: 1_000, concurrentCalls: 32 } } },
    keys: { acme: { tenant: "acme" } },
  });
  nats = await startNatsServer({ secured: { tenants: ["acme"] } });
  admin = await connect({ servers: nats.url, ...nats.connectOptions(NATS_USERS.admin) });
  // Every call reaches a runner: the gateway's answer cache would answer the stream's repeated
  // question itself and join the two lanes' calls into one, hiding which runner served and when.
  gateway = await startGatewayProcess({ natsUrl: nats, ...tenancy, env: { LSPMESH_GATEWAY_ANSWER_CACHE: "0" } });
  client = new Client({ name: "handoff-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(gateway.url, {
      requestInit: { headers: { authorization: `Bearer ${tenancy.tokens.acme}` } },
    }),
  );
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  await gateway?.stop();
  await admin?.close();
  await nats?.close();
  if (root) rmSync(root, { recursive: true, force: true });
}, 30_000);

/** Pause between one lane's calls, ms. */
const STREAM_PAUSE_MS = 5;

const text = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("\n");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function findDefinition(): Promise<true | string> {
  const result = (await client.callTool({ name: "find_definition", arguments: CALL }, undefined, {
    timeout: 60_000,
  })) as ToolResult;
  return !result.isError && text(result).includes("src/greeter.ts") ? true : text(result);
}

/** Two runner ids, the first acme/web's HRW owner. */
function runnerPair(tag: string): [string, string] {
  for (let attempt = 0; ; attempt++) {
    const ids = [`${tag}-a${attempt}`, `${tag}-b${attempt}`];
    if (
      rankByHrw(
        KEY,
        ids.map((id) => ({ id })),
      )[0]!.id === ids[0]
    )
      return ids as [string, string];
  }
}

async function registryEntry(id: string): Promise<RunnerRegistryEntry | undefined> {
  const entry = await (await new Kvm(admin).open(RUNNER_REGISTRY_BUCKET)).get(id);
  return entry?.operation === "PUT" ? entry.json<RunnerRegistryEntry>() : undefined;
}

type Figures = StreamSummary & { drainMs: number };

/**
 * A call is cold when it took more than a quarter of this rollout's own first call (which starts
 * the runner's connection, worker and session: ~1.5 s on a 2-core machine for this fixture; a later
 * move to a cold runner waited ~0.8 s) and at least 150 ms: warm calls, with or without a handoff
 * under way, take tens of ms.
 */
function coldThresholdFor(firstCallMs: number): number {
  return Math.max(150, firstCallMs / 4);
}

/**
 * One rollout of runner A under the call stream: what the calls from the SIGTERM on saw (`out`),
 * and with `back`, A started again with the same id (a StatefulSet pod replaced) and what the calls
 * from then on saw (`back`).
 */
async function rollOut(handoff: boolean, back: boolean): Promise<{ out: Figures; back?: StreamSummary }> {
  const env = {
    LSPMESH_DRAIN_MS: String(DRAIN_MS),
    LSPMESH_HANDOFF: handoff ? "1" : "0",
    LSPMESH_HANDOFF_MS: String(HANDOFF_MS),
  };
  const [aId, bId] = runnerPair(handoff ? "on" : "off");
  const start = (id: string) =>
    startRunnerProcess(join(root, "workspaces"), nats, id, { heartbeatMs: HEARTBEAT_MS, env });
  const [a, b] = await Promise.all([start(aId), start(bId)]);
  let again: Awaited<ReturnType<typeof start>> | undefined;
  try {
    await waitFor("the gateway routes to both runners", async () => (await gateway.liveRunners()) === 2);
    // The first call starts A's session: a cold start, the yardstick of a cold call below.
    const coldStart = performance.now();
    expect(await findDefinition()).toBe(true);
    const coldThresholdMs = coldThresholdFor(performance.now() - coldStart);
    expect(await a.sessions("acme", "web")).toEqual(["typescript"]);
    expect(await b.sessions("acme", "web")).toEqual([]);
    if (handoff) {
      await waitFor("A lists acme/web warm", async () =>
        Boolean((await registryEntry(aId))?.warm?.includes("acme/web/typescript")),
      );
    }
    // Paced like an agent (a few hundred calls a second): answered from the gateway's memory, back-to-back
    // calls would reach thousands a second, and the official MCP client keeps an abort listener per call.
    const stream = startCallStream(findDefinition, { concurrency: 2, pauseMs: STREAM_PAUSE_MS });
    await sleep(STEADY_MS);
    const from = stream.now();
    await a.stop("SIGTERM");
    const drainMs = Math.round(stream.now() - from);
    await sleep(TAIL_MS);
    const returned = stream.now();
    if (back) {
      again = await start(aId);
      await waitFor("the gateway routes to A again", async () => (await gateway.liveRunners()) === 2);
      await sleep(TAIL_MS);
    }
    const samples = await stream.stop();
    expect(await b.sessions("acme", "web")).toEqual(["typescript"]);
    if (again) expect(await again.sessions("acme", "web")).toEqual(["typescript"]);
    const steadyAndBack = samples.filter((sample) => sample.at < from || sample.at >= returned);
    return {
      out: { ...summarizeStream(samples, from, { until: returned, coldThresholdMs }), drainMs },
      ...(back ? { back: summarizeStream(steadyAndBack, returned, { coldThresholdMs }) } : {}),
    };
  } finally {
    await Promise.all([a.stop(), b.stop(), again?.stop()]);
  }
}

const results: Array<[string, StreamSummary & { drainMs?: number }]> = [];

function report(): void {
  const row = ([name, s]: (typeof results)[number]) =>
    `${name.padEnd(12)} calls ${String(s.calls).padStart(4)}  failed ${s.failed}  cold ${s.cold} (>${s.coldThresholdMs} ms)  median ${s.medianMs} ms  max ${s.maxMs} ms  steady ${s.steadyMedianMs} ms${s.drainMs === undefined ? "" : `  drain ${s.drainMs} ms`}`;
  console.log(`runner rollout under find_definition calls\n${results.map(row).join("\n")}`);
}

// In `npm run test:faults` only: a rollout under load (two runners, a gateway and three callers
// for a minute and a half here) is a fault scenario, and it loads both cores of a CI machine.
test.runIf(isFaultsTier())(
  "a runner out and back: without handoff each move waits for a cold server, with it none does; no call fails",
  async () => {
    const off = await rollOut(false, true);
    const on = await rollOut(true, true);
    results.push(["off: A out", off.out], ["off: A back", off.back!], ["on: A out", on.out], ["on: A back", on.back!]);
    report();
    for (const figures of [off.out, off.back!, on.out, on.back!]) expect(figures.errors).toEqual([]);
    expect(off.out.cold).toBeGreaterThan(0);
    expect(off.back!.cold).toBeGreaterThan(0);
    expect(on.out.cold).toBe(0);
    expect(on.back!.cold).toBe(0);
  },
  360_000,
);
