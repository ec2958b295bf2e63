#!/usr/bin/env node
// What one more client, session or runner costs. A cluster of real processes (secured
// nats-server, `lspmesh runner`, `lspmesh gateway`), on small copies of the TypeScript fixture:
//   (a) gateway memory: RSS of the gateway process idle, then with 1,000 open HTTP connections, two ways:
//       - 1,000 official MCP clients, each an agent with its own keep-alive connection, initialized
//         (initialize, tools/list) and kept connected by an MCP ping every 4 s (the gateway closes a
//         connection idle for 5 s; its MCP endpoint is stateless, so no stream stays open by itself);
//       - 1,000 raw sockets that sent an MCP request's headers and half its body (a slow client; the
//         gateway holds each up to its 30 s request timeout).
//       LSPMESH_MAX_CONNECTIONS is raised to 4,096 (default 1,024) so the cap is not what is measured.
//       Baseline: the idle gateway; figures per connection.
//   (b) runner memory beyond the language servers': RSS of the runner process alone (not its
//       children) with 0, 1, 10 and 20 workspaces holding a TypeScript session, per session;
//       baseline: the RSS its language servers (children) take per session.
//   (c) HRW routing: share of 10,000 workspace keys that move when a 5th runner joins a pool of 4,
//       with the gateway's own rankByHrw (expected 1/5); baseline: hash-modulo placement.
// Usage: node bench/scale.mjs [--connections 1000] [--sessions 0,1,10,20] [--keys 10000] [--only a,b,c]
//   (always on test/kit/fixtures/typescript-basic: many sessions of a large folder would measure
//   the language servers, not lspmesh)
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { connect as tcpConnect } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { parseArgs } from "node:util";
import { rankByHrw } from "@lspmesh/gateway";
import { descendantPids, fixturePath } from "@lspmesh/test-kit";
import {
  callTool,
  connectMcp,
  copyWorkspace,
  endRun,
  MiB,
  rssBytes,
  sleep,
  startCluster,
  TENANT,
  TOKEN,
} from "./lib/cluster.mjs";
import { processCpuMs as cpuMs } from "./lib/processCpu.mjs";
import { elapsedMs, percentiles, printTable, writeResult } from "./lib/stats.mjs";

const { values } = parseArgs({
  options: {
    connections: { type: "string", default: "1000" },
    sessions: { type: "string", default: "0,1,10,20" },
    keys: { type: "string", default: "10000" },
    only: { type: "string", default: "a,b,c" },
  },
});
const CONNECTIONS = Number(values.connections);
const SESSION_LEVELS = values.sessions.split(",").map(Number);
const KEYS = Number(values.keys);
const ONLY = new Set(values.only.split(","));
/** The gateway closes a connection idle this long (services/gateway httpServer.ts KEEP_ALIVE_TIMEOUT_MS). */
const GATEWAY_KEEP_ALIVE_MS = 5_000;
/** Each client pings this often, ms: under the gateway's keep-alive timeout, so its connection stays. */
const PING_EVERY_MS = 4_000;
/** Connections opened at once (the listen backlog is 511). */
const OPEN_BATCH = 50;
const FIXTURE = fixturePath("typescript-basic");

const root = mkdtempSync(join(tmpdir(), "lspmesh-bench-scale-"));
/** 1/5/15-minute load averages: the machine is shared, so figures are read against them. */
const results = { loadAverage: { start: loadavg() } };
const rows = [];
let failed;

/** Median RSS of a process over `samples` readings 200 ms apart (RSS moves with GC). */
async function settledRss(pid, samples = 5) {
  const readings = [];
  for (let i = 0; i < samples; i++) {
    readings.push(rssBytes(pid));
    await sleep(200);
  }
  return percentiles(readings).p50;
}

/** Established TCP connections whose local port is `port` (the server's side), from /proc/net/tcp{,6}. */
function establishedTo(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  let count = 0;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(`:${hex}`) && fields[3] === "01") count++;
    }
  }
  return count;
}

/**
 * A fetch for one MCP client over its own keep-alive connection (node:http, one socket): each
 * agent is its own process in reality, with its own connection, whereas the global fetch would
 * share a pool among all clients of this process.
 */
function ownConnectionFetch() {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, keepAliveMsecs: 1_000 });
  const fetchOwn = (url, init = {}) =>
    new Promise((resolve, reject) => {
      const headers = Object.fromEntries(new Headers(init.headers ?? {}).entries());
      const req = httpRequest(
        new URL(url),
        { method: init.method ?? "GET", headers, agent, signal: init.signal },
        (res) => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const one of [value].flat()) if (one !== undefined) responseHeaders.append(name, one);
          }
          const empty = [204, 205, 304].includes(res.statusCode) || init.method === "HEAD";
          if (empty) res.resume();
          resolve(
            new Response(empty ? null : Readable.toWeb(res), { status: res.statusCode, headers: responseHeaders }),
          );
        },
      );
      req.once("error", reject);
      req.end(init.body ?? undefined);
    });
  return { fetch: fetchOwn, close: () => agent.destroy() };
}

/** A service's V8 heap in use, bytes (its /metrics: prom-client's process metrics). */
async function heapUsed(service) {
  return Number((await service.metrics()).match(/^nodejs_heap_size_used_bytes (\S+)/m)?.[1] ?? Number.NaN);
}

/** CONNECTIONS MCP clients, each on its own connection, initialized and pinging; resolves with `hold` run meanwhile. */
async function holdMcpClients(gateway, hold) {
  const clients = [];
  let pinging = true;
  const pingLoops = [];
  const pingMs = [];
  let pingErrors = 0;
  try {
    const opened = process.hrtime.bigint();
    for (let i = 0; i < CONNECTIONS; i += OPEN_BATCH) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(OPEN_BATCH, CONNECTIONS - i) }, async () => {
          const own = ownConnectionFetch();
          const client = await connectMcp(gateway.url, TOKEN, "scale-agent", own.fetch);
          await client.listTools();
          return { client, own };
        }),
      );
      clients.push(...batch);
    }
    const openMs = elapsedMs(opened);
    for (const [index, { client }] of clients.entries()) {
      pingLoops.push(
        (async () => {
          // Spread over the period, so that the pings do not come in one burst.
          await sleep((index / clients.length) * PING_EVERY_MS);
          while (pinging) {
            const start = process.hrtime.bigint();
            await client.ping().then(
              () => pingMs.push(elapsedMs(start)),
              () => pingErrors++,
            );
            await sleep(Math.max(0, PING_EVERY_MS - elapsedMs(start)));
          }
        })(),
      );
    }
    // A full ping round first: every connection has been used since the last one opened.
    await sleep(PING_EVERY_MS + 1_000);
    const held = await hold(() => pingMs.length + pingErrors);
    return {
      ...held,
      opened: clients.length,
      openMs,
      pingsPerSecond: (clients.length * 1_000) / PING_EVERY_MS,
      ping: percentiles(pingMs),
      pingErrors,
    };
  } finally {
    pinging = false;
    await Promise.all(pingLoops);
    for (const { client, own } of clients) {
      await client.close().catch(() => {});
      own.close();
    }
  }
}

/** CONNECTIONS raw sockets that sent an MCP request's headers and half its body; resolves with `hold` run meanwhile. */
async function holdHalfSentRequests(port, hold) {
  const sockets = [];
  let cut = 0;
  try {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const head =
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
      `MCP-Protocol-Version: 2025-06-18\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, body.length >> 1)}`;
    const opened = process.hrtime.bigint();
    for (let i = 0; i < CONNECTIONS; i += OPEN_BATCH) {
      const batch = await Promise.all(
        Array.from(
          { length: Math.min(OPEN_BATCH, CONNECTIONS - i) },
          () =>
            new Promise((resolve, reject) => {
              const socket = tcpConnect(port, "127.0.0.1", () => {
                socket.write(head);
                resolve(socket);
              });
              socket.once("error", reject);
              socket.once("close", () => cut++);
              socket.resume();
            }),
        ),
      );
      sockets.push(...batch);
    }
    const openMs = elapsedMs(opened);
    await sleep(1_000);
    const held = await hold();
    return { ...held, opened: sockets.length, openMs, cutWhileHeld: cut };
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}

/**
 * (a) One kind of CONNECTIONS connections against a fresh gateway: RSS and heap idle (after a
 * warm-up call), then while they are held, CPU of the gateway meanwhile.
 */
async function gatewayMemory(kind) {
  const dir = join(root, `a-${kind}`);
  copyWorkspace(FIXTURE, join(dir, "workspaces", TENANT, "ws-0"));
  const cluster = await startCluster({
    root: dir,
    workspaces: ["ws-0"],
    // Every connection initializes, lists and pings: the tenant's HTTP ceiling (10 × calls/s) must not refuse them.
    limits: { callsPerSecond: 10_000, concurrentCalls: 4_096 },
    gatewayEnv: { LSPMESH_MAX_CONNECTIONS: "4096" },
  });
  const { gateway } = cluster;
  const pid = gateway.pid;
  const port = Number(gateway.url.port);
  try {
    // Warm the gateway's code paths (initialize, tool list, a call to the runner) before the idle figure.
    const warm = await connectMcp(gateway.url, TOKEN, "scale-warm");
    await warm.listTools();
    await callTool(warm, "find_definition", {
      workspace: "ws-0",
      file: "src/main.ts",
      symbol: "makeGreeting",
      line: 4,
    });
    await warm.close();
    await sleep(GATEWAY_KEEP_ALIVE_MS + 1_000);
    const idle = { rss: await settledRss(pid), heapUsed: await heapUsed(gateway), connections: establishedTo(port) };
    const hold = async (countRequests = () => 0) => {
      const cpuBefore = cpuMs(pid);
      // This process plays every client: its own CPU says whether the clients or the gateway were the limit.
      const ownCpuBefore = process.cpuUsage();
      const requestsBefore = countRequests();
      const from = process.hrtime.bigint();
      const samples = [];
      for (let i = 0; i < 5; i++) {
        samples.push({ rss: rssBytes(pid), connections: establishedTo(port) });
        await sleep(1_000);
      }
      const heldMs = elapsedMs(from);
      const ownCpu = process.cpuUsage(ownCpuBefore);
      return {
        rss: percentiles(samples.map((sample) => sample.rss)).p50,
        heapUsed: await heapUsed(gateway),
        connections: Math.min(...samples.map((sample) => sample.connections)),
        cpuPercent: ((cpuMs(pid) - cpuBefore) / heldMs) * 100,
        // process.cpuUsage() is in µs.
        clientCpuPercent: ((ownCpu.user + ownCpu.system) / 1_000 / heldMs) * 100,
        requestsPerSecond: ((countRequests() - requestsBefore) * 1_000) / heldMs,
      };
    };
    const held = kind === "mcp" ? await holdMcpClients(gateway, hold) : await holdHalfSentRequests(port, hold);
    const peakRss = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) * 1024;
    return {
      idle,
      held,
      peakRss,
      bytesPerConnection: (held.rss - idle.rss) / held.opened,
      heapBytesPerConnection: (held.heapUsed - idle.heapUsed) / held.opened,
    };
  } finally {
    await cluster.close();
  }
}

function gatewayRows(kind, figures) {
  const { idle, held } = figures;
  const KiB = (bytes) => (bytes / 1024).toFixed(1);
  const what =
    kind === "mcp" ? `${held.opened} MCP clients connected, pinging` : `${held.opened} half-sent MCP requests`;
  rows.push({
    what: `(a) gateway RSS idle (baseline for the next row), MiB`,
    value: idle.rss / MiB,
    "×baseline": 1,
    note: `heap used ${(idle.heapUsed / MiB).toFixed(1)} MiB`,
  });
  rows.push({
    what: `(a) gateway RSS, ${what}, MiB`,
    value: held.rss / MiB,
    "×baseline": held.rss / idle.rss,
    note:
      `${held.connections} established; ${KiB(figures.bytesPerConnection)} KiB RSS, ${KiB(figures.heapBytesPerConnection)} KiB heap per connection; ` +
      `peak ${(figures.peakRss / MiB).toFixed(0)} MiB; gateway CPU ${held.cpuPercent.toFixed(0)} %` +
      (kind === "mcp"
        ? `; ${held.pingsPerSecond} pings/s asked, ${held.requestsPerSecond.toFixed(0)} answered (clients' CPU ${held.clientCpuPercent.toFixed(0)} %), ping p50 ${held.ping.p50.toFixed(1)} ms p99 ${held.ping.p99.toFixed(1)} ms, ${held.pingErrors} failed`
        : `; ${held.cutWhileHeld} cut while held`),
  });
}

/** (b) Runner RSS (the process alone) and its language servers' with N workspaces in session. */
async function runnerMemory() {
  const most = Math.max(...SESSION_LEVELS);
  const workspaces = Array.from({ length: most }, (_, index) => `ws-${String(index).padStart(2, "0")}`);
  for (const workspace of workspaces) copyWorkspace(FIXTURE, join(root, "b", "workspaces", TENANT, workspace));
  const cluster = await startCluster({
    root: join(root, "b"),
    workspaces: workspaces.length > 0 ? workspaces : ["ws-00"],
    // One tenant holds them all: lift the per-tenant session cap (default 12).
    runnerOptions: { env: { LSPMESH_TENANT_MAX_SESSIONS: "0", LSPMESH_IDLE_TIMEOUT_S: "0" } },
  });
  const pid = cluster.runner.pid;
  const levels = [];
  try {
    const client = await connectMcp(cluster.gateway.url, TOKEN, "scale-sessions");
    try {
      let open = 0;
      for (const level of [...SESSION_LEVELS].sort((a, b) => a - b)) {
        // A definition across files: starts the session, loads the project, opens a document.
        for (; open < level; open++) {
          const answer = await callTool(client, "find_definition", {
            workspace: workspaces[open],
            file: "src/main.ts",
            symbol: "makeGreeting",
            line: 4,
          });
          if (!answer.locations?.length)
            throw new Error(`no definition in ${workspaces[open]}: ${JSON.stringify(answer)}`);
        }
        await sleep(2_000);
        const runnerRss = await settledRss(pid, 10);
        const runnerHeap = await heapUsed(cluster.runner);
        const servers = descendantPids(pid);
        const serversRss = servers.reduce((sum, child) => sum + rssBytes(child), 0);
        levels.push({ sessions: level, runnerRss, runnerHeap, serversRss, serverProcesses: servers.length });
        console.log(
          `runner with ${level} session(s): ${(runnerRss / MiB).toFixed(1)} MiB, its language servers ${(serversRss / MiB).toFixed(1)} MiB`,
        );
      }
    } finally {
      await client.close();
    }
  } finally {
    await cluster.close();
  }
  const zero = levels.find((level) => level.sessions === 0) ?? levels[0];
  for (const level of levels) {
    const sessions = level.sessions - zero.sessions;
    level.runnerBytesPerSession = sessions > 0 ? (level.runnerRss - zero.runnerRss) / sessions : undefined;
    level.serverBytesPerSession = sessions > 0 ? (level.serversRss - zero.serversRss) / sessions : undefined;
    level.runnerHeapPerSession = sessions > 0 ? (level.runnerHeap - zero.runnerHeap) / sessions : undefined;
    rows.push({
      what: `(b) runner RSS, ${level.sessions} session(s), MiB`,
      value: level.runnerRss / MiB,
      "×baseline":
        level.runnerBytesPerSession !== undefined
          ? level.runnerBytesPerSession / level.serverBytesPerSession
          : undefined,
      note:
        level.runnerBytesPerSession !== undefined
          ? `per session: runner ${(level.runnerBytesPerSession / MiB).toFixed(2)} MiB RSS, ${(level.runnerHeapPerSession / MiB).toFixed(2)} MiB heap; its language servers ${(level.serverBytesPerSession / MiB).toFixed(1)} MiB (${level.serverProcesses} processes)`
          : `runner heap ${(level.runnerHeap / MiB).toFixed(1)} MiB; language servers ${(level.serversRss / MiB).toFixed(1)} MiB`,
    });
  }
  results.runner = levels;
}

/** (c) Keys that change owner when a 5th runner joins 4, by HRW and by hash-modulo placement. */
function hrwMoves() {
  const before = ["runner-0", "runner-1", "runner-2", "runner-3"].map((id) => ({ id }));
  const after = [...before, { id: "runner-4" }];
  const keys = Array.from({ length: KEYS }, (_, index) => ({
    tenant: "acme",
    workspace: `ws-${index}`,
    language: "typescript",
  }));
  const start = process.hrtime.bigint();
  const owners = keys.map((key) => [rankByHrw(key, before)[0].id, rankByHrw(key, after)[0].id]);
  const rankUs = (elapsedMs(start) * 1_000) / (KEYS * 2);
  const moved = owners.filter(([a, b]) => a !== b);
  const movedElsewhere = moved.filter(([, b]) => b !== "runner-4").length;
  const load = Object.fromEntries(after.map(({ id }) => [id, owners.filter(([, b]) => b === id).length / KEYS]));
  // Hash-modulo: the same key hash, owner = hash mod N.
  const hash = (key) =>
    createHash("sha256").update(`${key.tenant}\u0000${key.workspace}\u0000${key.language}`).digest().readUInt32BE(0);
  const moduloMoved = keys.filter((key) => hash(key) % 4 !== hash(key) % 5).length;
  const share = moved.length / KEYS;
  results.hrw = {
    keys: KEYS,
    movedShare: share,
    expected: 1 / 5,
    movedToOtherThanNew: movedElsewhere,
    shareAfter: load,
    moduloMovedShare: moduloMoved / KEYS,
    rankMicroseconds: rankUs,
  };
  rows.push({
    what: `(c) HRW: keys moved when runner 5 joins 4 (of ${KEYS})`,
    value: share,
    "×baseline": share / (moduloMoved / KEYS),
    note: `expected 0.200 (×${(share / 0.2).toFixed(3)}); ${movedElsewhere} moved elsewhere than the new runner; shares after ${Object.values(
      load,
    )
      .map((v) => v.toFixed(3))
      .join("/")}; ${rankUs.toFixed(1)} µs per ranking`,
  });
  rows.push({
    what: "(c) hash-modulo placement (baseline): keys moved",
    value: moduloMoved / KEYS,
    "×baseline": 1,
    note: "owner = hash mod N",
  });
}

try {
  if (ONLY.has("c")) hrwMoves();
  if (ONLY.has("a")) {
    for (const kind of ["mcp", "raw"]) {
      const figures = await gatewayMemory(kind);
      results[kind === "mcp" ? "gatewayMcpClients" : "gatewayHalfSentRequests"] = figures;
      gatewayRows(kind, figures);
      console.log(
        `gateway, ${kind}: ${(figures.idle.rss / MiB).toFixed(1)} MiB idle, ${(figures.held.rss / MiB).toFixed(1)} MiB held`,
      );
    }
  }
  if (ONLY.has("b")) await runnerMemory();
  results.loadAverage.end = loadavg();
  printTable(
    "scale (values in MiB or shares; ×baseline as noted per row)",
    ["what", "value", "×baseline", "note"],
    rows,
    3,
  );
  console.log(
    `load average (1 min) at start ${results.loadAverage.start[0].toFixed(1)}, at end ${results.loadAverage.end[0].toFixed(1)} (${cpus().length} cores)`,
  );
  writeResult("scale", results);
} catch (error) {
  failed = error;
} finally {
  endRun(root, failed);
}
