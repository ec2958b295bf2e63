// NATS stopped under load on a loopback cluster (nats-server, two `lspmesh runner`s that register
// themselves, one `lspmesh gateway`), shared by the quick case (npm test) and the 60 s one
// (npm run test:faults). What is measured: every call on the workspaces answered correctly during
// the outage, /readyz 200 and degraded, the diagnostics produced during the outage on the stream
// once NATS is back (each file's latest, none lost), and a new runner registering afterwards.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DiagnosticsConsumer,
  type DiagnosticsMessage,
  decodeJson,
  diagnosticsWildcard,
  NATS_CONNECTION_OPTIONS,
  NATS_USERS,
} from "@lspmesh/events";
import { HEARTBEAT_MS, waitFor } from "@lspmesh/test-kit";
import { connect } from "@nats-io/transport-node";
import { expect } from "vitest";
import { startLoopbackCluster, TENANT, WORKSPACES } from "./loopbackCluster.js";

/** Files given a new type error in each workspace while NATS is down. */
const FILES_PER_WORKSPACE = 3;

export interface OutageReport {
  calls: number;
  failures: Array<{ text: string; ms: number }>;
  /** /readyz answers seen during the outage. */
  readyDuringOutage: Array<{ status: number; body: string }>;
  /** Diagnostics updates produced during the outage (one per changed file). */
  produced: number;
  /** Of those, delivered to the subscriber after NATS returned. */
  delivered: number;
  /** From NATS back to the last of them delivered, ms. */
  deliveredAfterMs: number;
  /** From NATS back to /readyz plain "ready" again, ms. */
  readyAgainAfterMs: number;
  /** From the new runner's start to the gateway routing to it, ms. */
  newRunnerLiveAfterMs: number;
  /** Diagnostics waiting in the runners' outboxes at the end of the outage, and dropped at the end. */
  outboxAtOutageEnd: number;
  droppedTotal: number;
}

/** `heartbeatMs`: the runners' registry heartbeat; the outage must outlast three of them. */
export async function natsOutageUnderLoad(outageMs: number, heartbeatMs = HEARTBEAT_MS): Promise<OutageReport> {
  if (outageMs < 3 * heartbeatMs) throw new Error("an outage shorter than three heartbeats proves nothing");
  const cluster = await startLoopbackCluster(["runner-1", "runner-2"], 4, heartbeatMs);
  const { nats, runners, clients, workspaces } = cluster;
  const observer: { close(): Promise<void> }[] = [];
  try {
    // The subscriber: the tenant's own identity (it may read only its tenant's diagnostics) with the
    // consumer CI bots use, from now on; it must resume by itself after the outage.
    const nc = await connect({
      servers: nats.url,
      ...nats.connectOptions(NATS_USERS.ci(TENANT)),
      ...NATS_CONNECTION_OPTIONS,
      reconnectTimeWait: 200,
    });
    observer.push(nc);
    const seen = new Map<string, string>();
    const messages = await DiagnosticsConsumer.open(nc, { filter: diagnosticsWildcard(TENANT), start: "new" });
    observer.push(messages);
    void (async () => {
      for await (const message of messages) {
        const diagnostics = decodeJson<DiagnosticsMessage>(message.data);
        seen.set(`${diagnostics.workspace}/${diagnostics.file}`, diagnostics.contentSha256);
      }
    })();

    const load = cluster.hoverLoad();
    await nats.stop();
    const outageEnds = Date.now() + outageMs;
    // Diagnostics produced while NATS is down: a new type error per file, asked for through the gateway.
    const expected = new Map<string, string>();
    for (const workspace of WORKSPACES) {
      for (let i = 0; i < FILES_PER_WORKSPACE; i++) {
        const file = `src/outage${i}.ts`;
        const text = `export const value${i}: number = "${workspace}-${i}";\n`;
        writeFileSync(join(workspaces, TENANT, workspace, file), text);
        expected.set(`${workspace}/${file}`, createHash("sha256").update(text).digest("hex"));
        const answer = await cluster.call(clients[0]!, "diagnostics", { workspace, files: [file], wait_ms: 10_000 });
        if (!answer.ok || !answer.text.includes("2322"))
          throw new Error(`diagnostics during the outage: ${answer.text}`);
      }
    }
    // The outage lasts its full length (that is the fault); /readyz is sampled every second of it.
    const readyDuringOutage: OutageReport["readyDuringOutage"] = [];
    while (Date.now() < outageEnds) {
      readyDuringOutage.push(await cluster.readyz());
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, Math.max(0, outageEnds - Date.now()))));
    }
    // Past three heartbeats every registry entry is stale: the case that used to fail everything.
    const runnerMetric = async (name: string) => {
      let sum = 0;
      for (const runner of runners)
        sum += Number((await runner.metrics()).match(new RegExp(`^${name} (\\d+)`, "m"))?.[1]);
      return sum;
    };
    const outboxAtOutageEnd = await runnerMetric("lspmesh_runner_diagnostics_outbox_messages");

    await nats.restart();
    const backAt = Date.now();
    const deliveredAll = () => [...expected].every(([key, sha]) => seen.get(key) === sha);
    const [deliveredAfterMs, readyAgainAfterMs] = await Promise.all([
      waitFor("the outage's diagnostics on the stream", deliveredAll, { timeoutMs: 60_000 }).then(
        () => Date.now() - backAt,
      ),
      waitFor("/readyz plain ready", async () => (await cluster.readyz()).body === "ready", {
        timeoutMs: 60_000,
      }).then(() => Date.now() - backAt),
    ]);

    const newRunnerAt = Date.now();
    await cluster.startRunner("runner-3");
    await waitFor("the new runner live", async () => (await cluster.liveRunners()) === 3, { timeoutMs: 30_000 });
    const newRunnerLiveAfterMs = Date.now() - newRunnerAt;

    await load.stop();
    const droppedTotal = await runnerMetric("lspmesh_runner_diagnostics_dropped_total");
    return {
      outboxAtOutageEnd,
      droppedTotal,
      calls: load.records.length,
      failures: load.records
        .filter((record) => !record.ok)
        .map((record) => ({ text: record.text, ms: record.end - record.start })),
      readyDuringOutage,
      produced: expected.size,
      delivered: [...expected].filter(([key, sha]) => seen.get(key) === sha).length,
      deliveredAfterMs,
      readyAgainAfterMs,
      newRunnerLiveAfterMs,
    };
  } finally {
    for (const item of observer.reverse()) await item.close().catch(() => {});
    await cluster.close();
  }
}

/** What every NATS outage case promises (docs/reliability.md); prints the figures. */
export function expectOutageHealed(report: OutageReport): void {
  const { readyDuringOutage, ...figures } = report;
  console.log(JSON.stringify({ ...figures, readyzDuringOutage: readyDuringOutage.map((answer) => answer.status) }));
  expect(report.failures).toEqual([]);
  expect(report.calls).toBeGreaterThan(20);
  expect(report.readyDuringOutage.length).toBeGreaterThan(0);
  for (const answer of report.readyDuringOutage) expect(answer.status).toBe(200);
  expect(report.readyDuringOutage.at(-1)?.body).toMatch(/^ready \(degraded: runner registry \(NATS\) unreachable/);
  expect(report.outboxAtOutageEnd, "the runners held the outage's diagnostics").toBeGreaterThan(0);
  expect(report.delivered).toBe(report.produced);
  expect(report.droppedTotal).toBe(0);
}
