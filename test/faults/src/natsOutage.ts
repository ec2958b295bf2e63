// NATS stopped under load on a loopback cluster (nats-server, two `lspmesh runner`s that register
// themselves, one `lspmesh gateway`), shared by the quick case (npm test) and the 60 s one
// (npm run test:faults). What is measured: every call on the workspaces answered correctly during
// the outage, /readyz 200 and degraded, the diagnostics produced during the outage on the stream
// once NATS is back (each file's latest, none lost), and a new runner registering afterwards.
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIAGNOSTICS_STREAM, type DiagnosticsMessage, decodeJson, NATS_CONNECTION_OPTIONS } from "@lspmesh/events";
import { sha256Hex } from "@lspmesh/gateway";
import {
  eventually,
  fixturePath,
  type GatewayProcess,
  HEARTBEAT_MS,
  type NatsServer,
  type RunnerProcess,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
} from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { DeliverPolicy, jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";

const TENANT = "acme";
const WORKSPACES = ["web", "api"];
const TOKEN = "acme-token-0123456789";
const CALLERS = 4;
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

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

export async function natsOutageUnderLoad(outageMs: number): Promise<OutageReport> {
  const root = mkdtempSync(join(tmpdir(), "lspmesh-faults-"));
  const workspaces = join(root, "workspaces");
  for (const workspace of WORKSPACES) {
    mkdirSync(join(workspaces, TENANT), { recursive: true });
    cpSync(fixturePath("typescript-basic"), join(workspaces, TENANT, workspace), { recursive: true });
  }
  const apiKeysFile = join(root, "api-keys.json");
  writeFileSync(
    apiKeysFile,
    JSON.stringify({ keys: [{ id: "acme-agent", sha256: sha256Hex(TOKEN), tenant: TENANT, scopes: ["lsp:read"] }] }),
  );
  const tenantsFile = join(root, "tenants.json");
  writeFileSync(
    tenantsFile,
    JSON.stringify({ tenants: { [TENANT]: { workspaces: WORKSPACES, limits: { callsPerSecond: 1000 } } } }),
  );

  let nats: NatsServer | undefined;
  const runners: RunnerProcess[] = [];
  let gateway: GatewayProcess | undefined;
  const clients: Client[] = [];
  const observer: { close(): Promise<void> }[] = [];
  try {
    nats = await startNatsServer();
    runners.push(
      ...(await Promise.all(["runner-1", "runner-2"].map((id) => startRunnerProcess(workspaces, nats!.url, id)))),
    );
    gateway = await startGatewayProcess({ natsUrl: nats.url, apiKeysFile, tenantsFile });
    const liveRunners = async () => Number((await gateway!.metrics()).match(/lspmesh_runners_live (\d+)/)?.[1] ?? 0);
    await eventually(async () => ((await liveRunners()) === 2 ? true : undefined), "2 live runners");
    const ready = async () => {
      const response = await fetch(new URL("/readyz", gateway!.url));
      return { status: response.status, body: await response.text() };
    };

    // The subscriber: an ordered consumer of the diagnostics stream, from now on.
    const nc = await connect({ servers: nats.url, ...NATS_CONNECTION_OPTIONS, reconnectTimeWait: 200 });
    observer.push(nc);
    const seen = new Map<string, string>();
    const consumer = await jetstream(nc).consumers.get(DIAGNOSTICS_STREAM, { deliver_policy: DeliverPolicy.New });
    const messages = await consumer.consume();
    observer.push({ close: async () => void (await messages.close()) });
    void (async () => {
      for await (const message of messages) {
        const diagnostics = decodeJson<DiagnosticsMessage>(message.data);
        seen.set(`${diagnostics.workspace}/${diagnostics.file}`, diagnostics.contentSha256);
      }
    })();

    for (let i = 0; i < CALLERS; i++) {
      const client = new Client({ name: `faults-${i}`, version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`/mcp`, gateway.url), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      clients.push(client);
    }
    const call = async (client: Client, name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as ToolResult;
      return { ok: !result.isError, text: result.content.map((part) => part.text ?? "").join("\n") };
    };
    const hover = (client: Client, workspace: string) =>
      call(client, "hover", { workspace, file: "src/main.ts", symbol: "PoliteGreeter", line: 3 });
    for (const workspace of WORKSPACES) {
      const first = await hover(clients[0]!, workspace);
      if (!first.ok) throw new Error(`hover before the outage failed: ${first.text}`);
    }

    let calls = 0;
    const failures: OutageReport["failures"] = [];
    let running = true;
    const load = clients.map(async (client, index) => {
      for (let n = 0; running; n++) {
        const start = Date.now();
        const answer = await hover(client, WORKSPACES[(index + n) % WORKSPACES.length]!);
        calls++;
        if (!answer.ok || !answer.text.includes("PoliteGreeter"))
          failures.push({ text: answer.text.slice(0, 300), ms: Date.now() - start });
      }
    });

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
        const answer = await call(clients[0]!, "diagnostics", { workspace, files: [file], wait_ms: 10_000 });
        if (!answer.ok || !answer.text.includes("2322"))
          throw new Error(`diagnostics during the outage: ${answer.text}`);
      }
    }
    const readyDuringOutage: OutageReport["readyDuringOutage"] = [];
    while (Date.now() < outageEnds) {
      readyDuringOutage.push(await ready());
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    // Past three heartbeats every registry entry is stale: the case that used to fail everything.
    if (outageMs < 3 * HEARTBEAT_MS) throw new Error("an outage shorter than three heartbeats proves nothing");
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
    await eventually(async () => (deliveredAll() ? true : undefined), "the outage's diagnostics on the stream", 60_000);
    const deliveredAfterMs = Date.now() - backAt;
    await eventually(async () => ((await ready()).body === "ready" ? true : undefined), "/readyz plain ready", 60_000);
    const readyAgainAfterMs = Date.now() - backAt;

    const newRunnerAt = Date.now();
    runners.push(await startRunnerProcess(workspaces, nats.url, "runner-3"));
    await eventually(async () => ((await liveRunners()) === 3 ? true : undefined), "the new runner live", 30_000);
    const newRunnerLiveAfterMs = Date.now() - newRunnerAt;

    running = false;
    await Promise.all(load);
    const droppedTotal = await runnerMetric("lspmesh_runner_diagnostics_dropped_total");
    return {
      outboxAtOutageEnd,
      droppedTotal,
      calls,
      failures,
      readyDuringOutage,
      produced: expected.size,
      delivered: [...expected].filter(([key, sha]) => seen.get(key) === sha).length,
      deliveredAfterMs,
      readyAgainAfterMs,
      newRunnerLiveAfterMs,
    };
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    for (const item of observer.reverse()) await item.close().catch(() => {});
    await gateway?.stop();
    await Promise.all(runners.map((runner) => runner.stop()));
    await nats?.close();
    rmSync(root, { recursive: true, force: true });
  }
}
