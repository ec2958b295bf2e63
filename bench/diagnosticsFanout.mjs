#!/usr/bin/env node
// How fast a change on disk reaches the people watching diagnostics. A cluster of real processes
// (secured nats-server, `lspmesh runner`, `lspmesh gateway`); each change writes one TypeScript
// file of the runner's volume copy, alternately adding a type error (TS2322 on an appended line)
// and removing it again. Measured per change, in ms from the write:
//   - NATS: the first diagnostics event for that content (contentSha256) with the expected result,
//     seen by 1 subscriber, then by each of 50 subscribers (separate connections as the tenant's
//     reader `ci-bench`, DiagnosticsConsumer as docs/events.md shows), split into the runner's part
//     (write → publishedAt) and delivery (publishedAt → receipt);
//   - MCP: a `diagnostics` call with wait_ms sent right after the write, until its fresh answer.
// Baseline in the same run: typescript-language-server spoken to directly, didChange with the
// same content → the publishDiagnostics with the expected result (what a server alone costs).
// Usage: node bench/diagnosticsFanout.mjs [folder] [--changes 20] [--subscribers 50] [--file src/x.ts] [--warmup 2]
//   (folder defaults to test/kit/fixtures/typescript-basic; e.g. /work/corpus/hono)
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { DiagnosticsConsumer, decodeJson, diagnosticsSubject, diagnosticsWildcard, NATS_USERS } from "@lspmesh/events";
import { connect } from "@nats-io/transport-node";
import {
  callTool,
  connectMcp,
  copyWorkspace,
  corpusFolder,
  endRun,
  sleep,
  startCluster,
  startDirectTypescript,
  TENANT,
  TOKEN,
} from "./lib/cluster.mjs";
import { elapsedMs, percentiles, printTable, writeResult } from "./lib/stats.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    changes: { type: "string", default: "20" },
    subscribers: { type: "string", default: "50" },
    file: { type: "string" },
    warmup: { type: "string", default: "2" },
  },
});
const CHANGES = Number(values.changes);
const MANY = Number(values.subscribers);
const WARMUP = Number(values.warmup);
const WORKSPACE = "fanout";
/** How long one change may take to show, ms; a change that does not show in time counts as missed. */
const CHANGE_TIMEOUT_MS = 30_000;
/** Quiet time between changes, ms, so a change's background re-pulls are over before the next write. */
const GAP_MS = 500;
/** TypeScript's "Type 'string' is not assignable to type 'number'." */
const PROBE_CODE = "2322";

const corpus = corpusFolder(positionals[0]);
/** 1/5/15-minute load averages: the machine is shared, so figures are read against them. */
const loadAtStart = loadavg();

/** The file to change: --file, else a usual entry point, else the first .ts file under src/. */
function targetFile(dir) {
  if (values.file) return values.file;
  for (const candidate of ["src/index.ts", "src/main.ts", "index.ts"])
    if (existsSync(join(dir, candidate))) return candidate;
  const found = readdirSync(join(dir, "src"), { recursive: true })
    .map(String)
    .filter((file) => /\.ts$/.test(file) && !/\.(d|test|spec)\.ts$/.test(file))
    .sort();
  if (!found[0]) throw new Error(`no TypeScript file under ${dir}/src: pass --file`);
  return `src/${found[0].replaceAll("\\", "/")}`;
}

const FILE = targetFile(corpus.dir);
const original = readFileSync(join(corpus.dir, FILE), "utf8");
const base = original.endsWith("\n") ? original : `${original}\n`;
/** 1-based line of the appended declaration. */
const PROBE_LINE = base.split("\n").length;
const broken = `${base}export const lspmeshBenchProbe: number = "not a number";\n`;
/** Change i (from 0) adds the error when even, removes it when odd. */
const contentOf = (i) => (i % 2 === 0 ? broken : base);
const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");

/** Has the probe error: lspmesh positions (range.start.line, 1-based) or LSP ones (0-based). */
const probeIn = (diagnostics, lineOf) =>
  diagnostics.some((d) => lineOf(d) === PROBE_LINE && String(d.code) === PROBE_CODE);
const lspmeshLine = (d) => d.range?.start?.line ?? d.line;

const root = mkdtempSync(join(tmpdir(), "lspmesh-bench-fanout-"));
const results = { corpus: corpus.dir, fallback: corpus.fallback, file: FILE, changes: CHANGES, subscribers: MANY };
const rows = [];
let failed;

/** Baseline: didChange → publishDiagnostics with the expected result, straight to the server. */
async function measureDirect() {
  const dir = copyWorkspace(corpus.dir, join(root, "direct"));
  let waiting;
  const server = await startDirectTypescript(dir, {
    onDiagnostics: (params) => waiting?.(params),
  });
  try {
    await server.initialize();
    const uri = server.uriOf(FILE);
    const until = (accept) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("direct server: no matching diagnostics")), CHANGE_TIMEOUT_MS);
        waiting = (params) => {
          if (params.uri !== uri || !accept(params.diagnostics)) return;
          clearTimeout(timer);
          waiting = undefined;
          resolve();
        };
      });
    // Opening loads the project; its diagnostics (no probe) say it is done.
    const opened = until((diagnostics) => !probeIn(diagnostics, (d) => d.range.start.line + 1));
    await server.open(FILE);
    await opened;
    const samples = [];
    for (let i = 0; i < WARMUP + CHANGES; i++) {
      const withError = i % 2 === 0;
      const seen = until((diagnostics) => probeIn(diagnostics, (d) => d.range.start.line + 1) === withError);
      const start = process.hrtime.bigint();
      await server.change(FILE, contentOf(i));
      await seen;
      if (i >= WARMUP) samples.push(elapsedMs(start));
      await sleep(GAP_MS);
    }
    return samples;
  } finally {
    await server.close();
  }
}

/** Subscribers on separate NATS connections, each recording when it first sees what `expect` accepts. */
async function openSubscribers(nats, count, subject) {
  const subscribers = [];
  try {
    for (let index = 0; index < count; index++) {
      const nc = await connect({
        servers: nats.url,
        ...nats.connectOptions(NATS_USERS.ci(TENANT)),
        name: `sub-${index}`,
      });
      const consumer = await DiagnosticsConsumer.open(nc, {
        filter: diagnosticsWildcard(TENANT, WORKSPACE),
        start: "new",
      });
      const subscriber = { nc, consumer, expect: undefined };
      subscribers.push(subscriber);
      void (async () => {
        for await (const message of consumer) {
          const expect = subscriber.expect;
          if (!expect || message.subject !== subject) continue;
          const payload = decodeJson(message.data);
          if (payload.contentSha256 !== expect.sha || probeIn(payload.diagnostics, lspmeshLine) !== expect.withError)
            continue;
          subscriber.expect = undefined;
          expect.seen({ ms: elapsedMs(expect.start), publishedAt: payload.publishedAt, receivedAt: Date.now() });
        }
      })().catch((error) => console.error(`subscriber ${index}: ${error.message}`));
    }
    return subscribers;
  } catch (error) {
    await closeSubscribers(subscribers);
    throw error;
  }
}

async function closeSubscribers(subscribers) {
  for (const { consumer, nc } of subscribers) {
    await consumer.close().catch(() => {});
    await nc.close().catch(() => {});
  }
}

/** Changes seen through NATS by `count` subscribers: per-subscriber latencies, the slowest per change, the runner's part. */
async function measureNats(cluster, count, file) {
  const volumeFile = join(cluster.volume, TENANT, WORKSPACE, FILE);
  const subject = diagnosticsSubject(TENANT, WORKSPACE, file);
  const subscribers = await openSubscribers(cluster.nats, count, subject);
  const all = [];
  const slowest = [];
  const runnerPart = [];
  const delivery = [];
  let missed = 0;
  try {
    for (let i = 0; i < WARMUP + CHANGES; i++) {
      const text = contentOf(i);
      const start = process.hrtime.bigint();
      const wallStart = Date.now();
      const arrivals = subscribers.map(
        (subscriber) =>
          new Promise((resolve) => {
            subscriber.expect = { sha: sha256(text), withError: i % 2 === 0, start, seen: resolve };
          }),
      );
      writeFileSync(volumeFile, text);
      const seen = await Promise.race([Promise.all(arrivals), sleep(CHANGE_TIMEOUT_MS).then(() => undefined)]);
      for (const subscriber of subscribers) subscriber.expect = undefined;
      if (i >= WARMUP) {
        if (!seen) missed++;
        else {
          all.push(...seen.map((arrival) => arrival.ms));
          slowest.push(Math.max(...seen.map((arrival) => arrival.ms)));
          runnerPart.push(seen[0].publishedAt - wallStart);
          delivery.push(...seen.map((arrival) => arrival.receivedAt - arrival.publishedAt));
        }
      }
      await sleep(GAP_MS);
    }
  } finally {
    await closeSubscribers(subscribers);
  }
  return { all, slowest, runnerPart, delivery, missed };
}

/** A diagnostics call with wait_ms sent right after each write: until its fresh, expected answer. */
async function measureCall(cluster) {
  const volumeFile = join(cluster.volume, TENANT, WORKSPACE, FILE);
  const client = await connectMcp(cluster.gateway.url, TOKEN, "fanout-bench");
  const samples = [];
  let wrong = 0;
  try {
    for (let i = 0; i < WARMUP + CHANGES; i++) {
      const start = process.hrtime.bigint();
      writeFileSync(volumeFile, contentOf(i));
      const answer = await callTool(
        client,
        "diagnostics",
        { workspace: WORKSPACE, files: [FILE], wait_ms: CHANGE_TIMEOUT_MS },
        CHANGE_TIMEOUT_MS + 30_000,
      );
      const ms = elapsedMs(start);
      const entry = answer.files?.find((f) => f.file === FILE);
      const right = entry?.fresh === true && probeIn(entry.diagnostics ?? [], lspmeshLine) === (i % 2 === 0);
      if (i >= WARMUP) {
        if (right) samples.push(ms);
        else wrong++;
      }
      await sleep(GAP_MS);
    }
  } finally {
    await client.close();
  }
  return { samples, wrong };
}

try {
  console.log(`corpus ${corpus.dir}, file ${FILE}, ${CHANGES} changes per path (+${WARMUP} unmeasured)`);
  console.log("baseline: typescript-language-server directly…");
  const direct = percentiles(await measureDirect());
  results.direct = direct;
  rows.push({ path: "typescript-language-server directly (baseline)", ...direct, "×p50": 1 });

  copyWorkspace(corpus.dir, join(root, "workspaces", TENANT, WORKSPACE));
  console.log("starting nats-server, lspmesh runner and lspmesh gateway…");
  const cluster = await startCluster({ root, workspaces: [WORKSPACE] });
  try {
    // Opens the file on the runner (only open documents' diagnostics are published) and waits
    // until the project is loaded and the file checked.
    const mcp = await connectMcp(cluster.gateway.url, TOKEN, "fanout-setup");
    try {
      await callTool(mcp, "diagnostics", { workspace: WORKSPACE, files: [FILE], wait_ms: 60_000 }, 180_000);
    } finally {
      await mcp.close();
    }
    const ratio = (p) => p.p50 / direct.p50;
    for (const count of [1, MANY]) {
      console.log(`NATS, ${count} subscriber(s)…`);
      const nats = await measureNats(cluster, count, FILE);
      const perSubscriber = percentiles(nats.all);
      const slowest = percentiles(nats.slowest);
      const runnerPart = percentiles(nats.runnerPart);
      const delivery = percentiles(nats.delivery);
      results[`nats${count}`] = { perSubscriber, slowestPerChange: slowest, runnerPart, delivery, missed: nats.missed };
      rows.push({
        path: `NATS event, ${count} subscriber(s), each`,
        ...perSubscriber,
        "×p50": ratio(perSubscriber),
        missed: nats.missed,
      });
      if (count > 1)
        rows.push({ path: `NATS event, ${count} subscribers, last of them`, ...slowest, "×p50": ratio(slowest) });
      rows.push({ path: `  of which write → runner published`, ...runnerPart, "×p50": ratio(runnerPart) });
      rows.push({ path: `  of which published → received`, ...delivery });
    }
    console.log("MCP diagnostics call with wait_ms…");
    const call = await measureCall(cluster);
    const callStats = percentiles(call.samples);
    results.mcpCall = { ...callStats, wrong: call.wrong };
    rows.push({
      path: "MCP diagnostics call (wait_ms), write → answer",
      ...callStats,
      "×p50": ratio(callStats),
      missed: call.wrong,
    });
  } finally {
    await cluster.close();
  }
  // Counts are whole numbers; the table prints numbers with 2 decimals.
  for (const row of rows)
    for (const column of ["count", "missed"]) if (typeof row[column] === "number") row[column] = String(row[column]);
  results.loadAverage = { start: loadAtStart, end: loadavg() };
  printTable(
    `change on disk → new diagnostics, ms (${CHANGES} changes, ${relative(process.cwd(), corpus.dir) || corpus.dir} ${FILE}; ×p50 = p50 / baseline p50)`,
    ["path", "count", "p50", "p90", "p99", "max", "×p50", "missed"],
    rows,
  );
  console.log(
    `load average (1 min) at start ${results.loadAverage.start[0].toFixed(1)}, at end ${results.loadAverage.end[0].toFixed(1)} (${cpus().length} cores)`,
  );
  writeResult("diagnosticsFanout", results);
} catch (error) {
  failed = error;
} finally {
  endRun(root, failed);
}
