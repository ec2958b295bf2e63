#!/usr/bin/env node
// Throughput and latency of lspmesh under concurrent agents, on a real corpus. Four targets, each
// driven by K concurrent callers at every level (default 1, 8, 64, 256):
//   cluster    the cluster path: nats-server, `lspmesh gateway` and `lspmesh runner` as separate
//              processes (API key, gRPC between gateway and runner), the runner's language servers
//              sandboxed with bubblewrap (LSPMESH_SANDBOX=bwrap; `--sandbox auto|none` to compare)
//   serve      `lspmesh serve`: gateway and runner in one process
//   direct     typescript-language-server asked directly (K requests in flight on its one stdio
//              connection): the baseline
//   MCP floor  a replay server (bench/lib/replayMcpServer.mjs) answering the same official clients
//              with serve's recorded answers and doing nothing else — what the client and HTTP cost
// Each MCP caller is its own official 2.x Client and connection, calling the operations over the
// golden queries (bench/lib/queries.mjs) in a loop. Per target and level: calls/s, p50/p90/p99,
// errors (failed calls and error answers, counted, first kinds listed), the cluster runner's answer
// cache hit rate, and CPU per call of every process (/proc): clients, gateway, runner (or serve, or
// the replay server), nats-server, the language servers; ratios to the direct server per level.
// The tenant's gateway limits (calls per second, concurrent calls) are set far above what the
// levels can reach, so no call is refused for them (said in the output).
// `--operations` picks what the callers ask (default find_definition,hover: cheap answers, where
// lspmesh's own CPU per call shows most); `--answer-cache off` makes every call reach the language
// server (LSPMESH_ANSWER_CACHE=0 for serve and the runner), the way to compare with the direct server
// when each answer costs the server real work (e.g. --operations find_definition,find_references,hover).
// Usage: node bench/concurrency.mjs [DIR] [--duration-s 10] [--levels 1,8,64,256] [--queries 40] [--seed 1]
//          [--operations find_definition,hover] [--answer-cache on|off] [--rounds 3] [--sandbox bwrap|auto|none]
// Every level is measured for every target in --rounds rounds, interleaved in rotating order (a
// slow stretch of the shared machine weighs on all targets alike); each row pools its rounds. In
// a round the callers answer whole cycles of one shuffled order of the (query, operation) pairs.
//   without DIR: the small fixture test/kit/fixtures/typescript-hono-shape
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { descendantPids, startServe } from "@lspmesh/test-kit";
import { startDirectServer } from "./lib/directServer.mjs";
import { processCpuMs } from "./lib/processCpu.mjs";
import { callOrder, goldenQueries, OPERATIONS as KNOWN_OPERATIONS, wholeCycles } from "./lib/queries.mjs";
import { recordingFetch, startReplayServer } from "./lib/replayMcpServer.mjs";
import { elapsedMs, machine, percentiles, printTable, writeResult } from "./lib/stats.mjs";
import {
  answerCacheCounts,
  cacheHitRate,
  connectMcp,
  corpusFolder,
  directPath,
  formatRate,
  meshPath,
  startMeshCluster,
  UNTHROTTLED,
  waitUntilMeshReady,
} from "./overhead.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "duration-s": { type: "string", default: "10" },
    levels: { type: "string", default: "1,8,64,256" },
    queries: { type: "string", default: "40" },
    seed: { type: "string", default: "1" },
    operations: { type: "string", default: "find_definition,hover" },
    "answer-cache": { type: "string", default: "on" },
    rounds: { type: "string", default: "3" },
    sandbox: { type: "string", default: "bwrap" },
  },
});
/** Rounds the compared level is measured in (each target DURATION / ROUNDS per round). */
const ROUNDS = Number(values.rounds);
const DURATION_MS = Number(values["duration-s"]) * 1000;
const LEVELS = values.levels.split(",").map(Number);
/** The level whose throughput ratios are printed in the summary line (all levels have their ratios). */
const COMPARED_LEVEL = 8;
const OPERATIONS = values.operations.split(",");
const unknown = OPERATIONS.filter((operation) => !KNOWN_OPERATIONS[operation]);
if (unknown.length > 0)
  throw new Error(`unknown operations ${unknown.join(", ")}; known: ${Object.keys(KNOWN_OPERATIONS).join(", ")}`);
if (!["on", "off"].includes(values["answer-cache"])) throw new Error("--answer-cache is on or off");
/** LSPMESH_* settings of serve and the runner: the answer cache off when asked. */
const CACHE_ENV = values["answer-cache"] === "off" ? { LSPMESH_ANSWER_CACHE: "0" } : undefined;
if (!["bwrap", "auto", "none"].includes(values.sandbox)) throw new Error("--sandbox is bwrap, auto or none");
/** The cluster runner's settings: its language servers sandboxed as in a deployment (bwrap: required, start fails without it). */
const RUNNER_ENV = { ...CACHE_ENV, LSPMESH_SANDBOX: values.sandbox };
/** Answer cache off means off everywhere: the cluster gateway's own cache of read answers too. */
const GATEWAY_ENV = CACHE_ENV ? { LSPMESH_GATEWAY_ANSWER_CACHE: "0" } : {};
/** The targets measured at every level, in the order of the first round. */
const TARGETS = ["direct", "serve", "cluster", "MCP floor"];
/** Clients connecting at once while a level is set up (connections are not timed). */
const CONNECT_BATCH = 32;
/** Distinct error messages kept per row. */
const KEPT_ERRORS = 3;

// The gateway's cap on open HTTP connections (default 1024) must not be what is measured either:
// every client may hold a connection or two. startGatewayProcess passes this process's env on.
const MAX_LEVEL = Math.max(...LEVELS, COMPARED_LEVEL);
if (MAX_LEVEL * 4 > 1024) process.env.LSPMESH_MAX_CONNECTIONS = String(MAX_LEVEL * 4);

const folder = corpusFolder(positionals[0]);
const queries = goldenQueries(folder, { count: Number(values.queries), seed: Number(values.seed) });
if (queries.length === 0) throw new Error(`no golden queries in ${folder} (no TypeScript usages found)`);

/**
 * Times (ms) of each process in the tree under `pid`, by pid: `cpuMs`, its CPU (user + system, from
 * /proc/<pid>/stat), and `waitMs`, how long its threads were runnable but waiting for a core
 * (/proc/<pid>/task/<tid>/schedstat, the second field, ns; every current kernel keeps schedstats).
 */
function treeTimes(pid) {
  const times = new Map();
  for (const each of [pid, ...descendantPids(pid)]) {
    try {
      const cpuMs = processCpuMs(each);
      let waitNs = 0;
      for (const task of readdirSync(`/proc/${each}/task`))
        waitNs += Number(readFileSync(`/proc/${each}/task/${task}/schedstat`, "utf8").split(" ")[1]);
      times.set(each, { cpuMs, waitMs: waitNs / 1e6 });
    } catch {
      // exited meanwhile
    }
  }
  return times;
}

/** Below this CPU use (ms per second, all trees together) the servers count as idle. */
const IDLE_CPU_MS_PER_S = 100;
/** Longest wait for the servers to go idle after the warm-up, ms. */
const IDLE_WAIT_MS = 120_000;

/**
 * Waits until the process trees under `pids` use less than IDLE_CPU_MS_PER_S for 2 s in a row:
 * after files are opened, tsserver checks them in the background (diagnostics) for tens of
 * seconds on a large corpus, which would otherwise weigh on whichever level runs first.
 */
async function waitUntilIdle(pids) {
  const total = () =>
    pids.reduce((sum, pid) => sum + [...treeTimes(pid).values()].reduce((a, { cpuMs }) => a + cpuMs, 0), 0);
  const deadline = Date.now() + IDLE_WAIT_MS;
  let previous = total();
  let quietSeconds = 0;
  while (quietSeconds < 2) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = total();
    quietSeconds = now - previous < IDLE_CPU_MS_PER_S ? quietSeconds + 1 : 0;
    previous = now;
  }
  return true;
}

/** Whether `pid` is a runner's tenant worker: the node process running the worker bundle, not the bwrap wrapping it. */
function isTenantWorker(pid) {
  try {
    const node = readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "node";
    return node && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerMain");
  } catch {
    return false; // exited meanwhile
  }
}

/**
 * Starts CPU accounting of process trees ({ name: pid }) and of this process. stop() gives ms per
 * name (the process itself) and per "<name> children" (the language servers under it).
 */
function cpuMeter(trees) {
  const before = Object.fromEntries(Object.entries(trees).map(([name, pid]) => [name, treeTimes(pid)]));
  const self = process.cpuUsage();
  return () => {
    const used = {};
    for (const [name, pid] of Object.entries(trees)) {
      used[name] = 0;
      used[`${name} children`] = 0;
      for (const [each, { cpuMs, waitMs }] of treeTimes(pid)) {
        const earlier = before[name].get(each);
        const delta = cpuMs - (earlier?.cpuMs ?? 0);
        used[each === pid ? name : `${name} children`] += delta;
        const worker = each !== pid && isTenantWorker(each);
        if (worker) used.workers = (used.workers ?? 0) + delta;
        // The language servers, as "servers cpu/call" counts them: every process of the direct
        // tree; under serve and the runner, the processes below them that are not tenant workers.
        const server = name === "direct" || ((name === "serve" || name === "runner") && each !== pid && !worker);
        if (server) used.serversWait = (used.serversWait ?? 0) + waitMs - (earlier?.waitMs ?? 0);
      }
    }
    const own = process.cpuUsage(self);
    used.clients = (own.user + own.system) / 1000;
    return used;
  };
}

/** The order the callers take (query, operation) pairs in (lib/queries.mjs callOrder). */
const CALL_ORDER = callOrder(queries.length * OPERATIONS.length, Number(values.seed));

/**
 * One loop per element of `paths` (a caller), all taking the next pair of CALL_ORDER in whole
 * cycles (lib/queries.mjs wholeCycles) until the duration is over.
 */
async function load(paths, durationMs) {
  const samples = [];
  const errors = { count: 0, messages: new Map() };
  const pairs = wholeCycles(CALL_ORDER, durationMs);
  const start = process.hrtime.bigint();
  await Promise.all(
    paths.map(async (path) => {
      for (let pair = pairs.next(); pair !== undefined; pair = pairs.next()) {
        const query = queries[pair % queries.length];
        const operation = OPERATIONS[Math.floor(pair / queries.length)];
        const callStart = process.hrtime.bigint();
        let failure;
        try {
          const facts = await path.call(operation, query);
          failure = facts.error;
        } catch (error) {
          failure = error.message;
        }
        if (failure === undefined) {
          samples.push(elapsedMs(callStart));
        } else {
          errors.count++;
          const key = failure.slice(0, 160);
          errors.messages.set(key, (errors.messages.get(key) ?? 0) + 1);
        }
      }
    }),
  );
  const seconds = elapsedMs(start) / 1000;
  return { ...percentiles([...samples]), samples, seconds, callsPerSecond: samples.length / seconds, errors };
}

/** Connects `count` MCP clients, CONNECT_BATCH at a time. */
async function connectClients(url, token, count, into) {
  for (let i = 0; i < count; i += CONNECT_BATCH) {
    const batch = await Promise.allSettled(
      Array.from({ length: Math.min(CONNECT_BATCH, count - i) }, (_, j) => connectMcp(url, token, `bench-${i + j}`)),
    );
    // Connected ones are kept (the caller closes them) even when another failed.
    for (const outcome of batch) if (outcome.status === "fulfilled") into.push(outcome.value);
    const failed = batch.find((outcome) => outcome.status === "rejected");
    if (failed) throw new Error(`connecting client ${into.length + 1} of ${count}: ${failed.reason.message}`);
  }
}

function gatewayRateLimited(metricsText) {
  let total = 0;
  for (const match of metricsText.matchAll(/^lspmesh_rate_limited_total\{[^}]*\} (\d+)/gm)) total += Number(match[1]);
  return total;
}

/** Several measures of one target as one: calls and seconds summed, latencies pooled, CPU summed, cache counted over all. */
function mergeMeasures(list) {
  const samples = list.flatMap((each) => each.result.samples);
  const seconds = list.reduce((sum, each) => sum + each.result.seconds, 0);
  const errors = { count: 0, messages: new Map() };
  for (const each of list) {
    errors.count += each.result.errors.count;
    for (const [message, count] of each.result.errors.messages)
      errors.messages.set(message, (errors.messages.get(message) ?? 0) + count);
  }
  const used = {};
  for (const each of list) for (const [name, ms] of Object.entries(each.used)) used[name] = (used[name] ?? 0) + ms;
  const caches = list.map((each) => each.cache).filter(Boolean);
  const cache =
    caches.length > 0
      ? {
          before: {},
          after: Object.fromEntries(
            ["hit", "shared", "miss"].map((result) => [
              result,
              caches.reduce((sum, { before, after }) => sum + (after[result] ?? 0) - (before[result] ?? 0), 0),
            ]),
          ),
        }
      : undefined;
  return {
    result: { ...percentiles([...samples]), samples, seconds, callsPerSecond: samples.length / seconds, errors },
    used,
    cache,
  };
}

const rows = [];
const errorLines = [];
/** CPU per successful call (ms) of the bench's clients and of the processes serving them. */
function cpuPerCall(used, calls) {
  const per = (ms) => (calls > 0 && ms !== undefined ? ms / calls : Number.NaN);
  return {
    "clients cpu/call": per(used.clients),
    "gateway cpu/call": per(used.gateway),
    "runner cpu/call": per(used.runner ?? used.serve ?? used.replay),
    "nats cpu/call": per(used.nats),
    "workers cpu/call": per(used.workers),
    "servers cpu/call": per(
      (used["runner children"] ?? used["serve children"] ?? used.direct + used["direct children"]) -
        (used.workers ?? 0),
    ),
    "servers wait/call": per(used.serversWait),
  };
}

function record(target, clients, result, hitRate, used) {
  rows.push({
    target,
    clients,
    calls: result.count,
    "calls/s": result.callsPerSecond,
    "p50 ms": result.p50,
    "p90 ms": result.p90,
    "p99 ms": result.p99,
    errors: result.errors.count,
    "cache hits": formatRate(hitRate),
    ...cpuPerCall(used, result.count),
  });
  const kept = [...result.errors.messages.entries()].slice(0, KEPT_ERRORS);
  for (const [message, count] of kept) errorLines.push(`${target} × ${clients}: ${count}× ${message}`);
  console.log(
    `${target} × ${clients}: ${result.callsPerSecond.toFixed(1)} calls/s, p50 ${result.p50.toFixed(1)} ms, ${result.errors.count} errors`,
  );
}

/** Processes named bwrap under `pid`: the runner's language servers run sandboxed. */
function sandboxProcesses(pid) {
  let count = 0;
  for (const each of descendantPids(pid)) {
    try {
      if (readFileSync(`/proc/${each}/comm`, "utf8").trim() === "bwrap") count++;
    } catch {
      // exited meanwhile
    }
  }
  return count;
}

/** Per level, each MCP target's calls/s over the direct server's. */
function levelRatios(table, levels) {
  const rate = (target, clients) => table.find((row) => row.target === target && row.clients === clients)?.["calls/s"];
  return levels.map((clients) => ({
    clients,
    serve: rate("serve", clients) / rate("direct", clients),
    cluster: rate("cluster", clients) / rate("direct", clients),
    "MCP floor": rate("MCP floor", clients) / rate("direct", clients),
  }));
}

let direct;
let serve;
let cluster;
let replay;
const clients = [];
try {
  console.log(
    `corpus ${folder}: ${queries.length} golden queries, ${OPERATIONS.join(" + ")}; ${DURATION_MS / 1000} s per level; ` +
      `levels ${LEVELS.join(", ")} for ${TARGETS.join(", ")}, ${ROUNDS} interleaved rounds each; answer cache ${values["answer-cache"]}; cluster sandbox ${values.sandbox}`,
  );
  console.log(
    `gateway tenant limits set to ${UNTHROTTLED.concurrentCalls} concurrent calls and ${UNTHROTTLED.callsPerSecond} calls/s (tenants file) so that they do not throttle` +
      `; LSPMESH_MAX_CONNECTIONS ${process.env.LSPMESH_MAX_CONNECTIONS ?? "1024 (default)"}`,
  );
  const started = Date.now();
  // Started together; whatever started is closed below even when another failed.
  const starting = await Promise.allSettled([
    startDirectServer(folder),
    startServe(folder, ["--quiet"], CACHE_ENV ? { env: CACHE_ENV } : {}),
    startMeshCluster(folder, { limits: UNTHROTTLED, runnerEnv: RUNNER_ENV, gatewayEnv: GATEWAY_ENV }),
  ]);
  [direct, serve, cluster] = starting.map((outcome) => outcome.value);
  const failed = starting.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
  const serveProbe = await connectMcp(serve.url);
  clients.push(serveProbe);
  const clusterProbe = await connectMcp(cluster.url, cluster.token);
  clients.push(clusterProbe);
  await Promise.all([
    direct.waitUntilReady(queries[0]),
    waitUntilMeshReady(serveProbe, queries[0]),
    waitUntilMeshReady(clusterProbe, queries[0]),
  ]);
  console.log(`all three answer (${((Date.now() - started) / 1000).toFixed(1)} s after start); ${direct.server}`);
  const sandboxed = sandboxProcesses(cluster.runner.pid);
  console.log(
    `cluster runner's language servers: ${sandboxed > 0 ? `under bubblewrap (${sandboxed} bwrap processes)` : "not sandboxed"} (LSPMESH_SANDBOX=${values.sandbox})`,
  );

  // Warm-up: every query and operation through each, twice. The first pass loads projects and
  // opens files, and each file the runner opens drops the answers it remembered before (its
  // content epoch moves); after the second every level starts from the same warm state.
  const directAsker = directPath(direct, folder);
  for (let pass = 0; pass < 2; pass++)
    for (const path of [directAsker, meshPath("serve", serveProbe), meshPath("cluster", clusterProbe)])
      for (const query of queries)
        for (const operation of OPERATIONS) await path.call(operation, query).catch(() => {});

  // serve's answers to every pair, recorded for the replay server (the floor below).
  const recorder = recordingFetch();
  const recordingClient = await connectMcp(serve.url, undefined, "bench-recorder", recorder.fetch);
  clients.push(recordingClient);
  await recordingClient.listTools();
  for (const query of queries)
    for (const operation of OPERATIONS) await meshPath("serve", recordingClient).call(operation, query);
  replay = await startReplayServer(recorder.recordings);

  const idleStart = Date.now();
  const idle = await waitUntilIdle([direct.pid, serve.child.pid, cluster.runner.pid, cluster.gateway.pid]);
  console.log(
    `warm-up done; servers ${idle ? "idle" : "still busy"} after ${((Date.now() - idleStart) / 1000).toFixed(0)} s of background work (tsserver checking opened files)`,
  );

  // One row: `level` callers of `target` for `durationMs`, its CPU and (cluster) cache hit rate.
  const rateLimitedBefore = gatewayRateLimited(await cluster.gateway.metrics());
  async function measure(target, level, durationMs) {
    if (target === "direct") {
      const stop = cpuMeter({ direct: direct.pid });
      const result = await load(Array(level).fill(directAsker), durationMs);
      return { result, used: stop(), cache: undefined };
    }
    const { url, token, trees } = {
      serve: { url: serve.url, token: undefined, trees: { serve: serve.child.pid } },
      cluster: {
        url: cluster.url,
        token: cluster.token,
        trees: { gateway: cluster.gateway.pid, runner: cluster.runner.pid, nats: cluster.nats.pid() },
      },
      "MCP floor": { url: replay.url, token: undefined, trees: { replay: replay.pid } },
    }[target];
    const levelClients = [];
    try {
      const connectStart = Date.now();
      await connectClients(url, token, level, levelClients);
      if (level > COMPARED_LEVEL)
        console.log(`${target}: ${level} clients connected in ${((Date.now() - connectStart) / 1000).toFixed(1)} s`);
      // serve runs its runner in-process: no metrics port to read the cache from.
      const before = target === "cluster" ? answerCacheCounts(await cluster.runner.metrics()) : undefined;
      const stop = cpuMeter(trees);
      const result = await load(
        levelClients.map((client) => meshPath(target, client)),
        durationMs,
      );
      const used = stop();
      const after = target === "cluster" ? answerCacheCounts(await cluster.runner.metrics()) : undefined;
      return { result, used, cache: before && after ? { before, after } : undefined };
    } finally {
      await Promise.all(levelClients.map((client) => client.close().catch(() => {})));
    }
  }

  // Every level: each target in ROUNDS rounds, interleaved in rotating order, so that a slow stretch
  // of the machine (or of tsserver) weighs on all of them alike; each row pools its rounds.
  /** Calls per second of every round, as measured (the rows pool them). */
  const roundRates = [];
  for (const level of LEVELS) {
    const parts = new Map(TARGETS.map((target) => [target, []]));
    for (let round = 0; round < ROUNDS; round++)
      for (let i = 0; i < TARGETS.length; i++) {
        const target = TARGETS[(round + i) % TARGETS.length];
        const measured = await measure(target, level, DURATION_MS / ROUNDS);
        parts.get(target).push(measured);
        roundRates.push({ level, round: round + 1, target, callsPerSecond: measured.result.callsPerSecond });
        // Each round apart too: how far two rounds of the same target differ says how noisy the host is.
        console.log(
          `round ${round + 1}/${ROUNDS}, ${level} callers, ${target}: ${measured.result.callsPerSecond.toFixed(1)} calls/s`,
        );
      }
    for (const target of TARGETS) {
      const { result, used, cache } = mergeMeasures(parts.get(target));
      record(target, level, result, cache ? cacheHitRate(cache.before, cache.after) : Number.NaN, used);
    }
  }
  const rateLimited = gatewayRateLimited(await cluster.gateway.metrics()) - rateLimitedBefore;

  printTable(
    `concurrent ${OPERATIONS.join(" + ")}, answer cache ${values["answer-cache"]}, ${DURATION_MS / 1000} s per row (cache hits: the cluster runner's answer cache, hit + shared)`,
    ["target", "clients", "calls", "calls/s", "p50 ms", "p90 ms", "p99 ms", "errors", "cache hits"],
    rows,
  );
  printTable(
    `CPU time per answered call, ms, on this machine's ${machine().cores} cores (clients: this process; runner: the runner, the whole serve process, or the replay server; workers: the runner's tenant workers; servers: typescript-language-server and tsserver; servers wait: the time their threads were runnable but waiting for a core)`,
    [
      "target",
      "clients",
      "calls/s",
      "clients cpu/call",
      "gateway cpu/call",
      "runner cpu/call",
      "nats cpu/call",
      "workers cpu/call",
      "servers cpu/call",
      "servers wait/call",
    ],
    rows,
  );
  const perLevel = levelRatios(rows, LEVELS);
  printTable("throughput / direct at the same level", ["clients", "serve", "cluster", "MCP floor"], perLevel);
  const throughput = (target) =>
    rows.find((row) => row.target === target && row.clients === COMPARED_LEVEL)?.["calls/s"];
  const ratios = {
    clusterToDirect: throughput("cluster") / throughput("direct"),
    serveToDirect: throughput("serve") / throughput("direct"),
    floorToDirect: throughput("MCP floor") / throughput("direct"),
    serveToFloor: throughput("serve") / throughput("MCP floor"),
    clusterToFloor: throughput("cluster") / throughput("MCP floor"),
  };
  console.log(
    `\nthroughput at ${COMPARED_LEVEL} concurrent callers: cluster / direct ${ratios.clusterToDirect.toFixed(2)}, serve / direct ${ratios.serveToDirect.toFixed(2)}` +
      `; MCP floor / direct ${ratios.floorToDirect.toFixed(2)} (no MCP server can do better with these clients on this machine)` +
      `; serve / floor ${ratios.serveToFloor.toFixed(2)}, cluster / floor ${ratios.clusterToFloor.toFixed(2)}`,
  );
  console.log(`calls the gateway refused for tenant limits during the cluster levels: ${rateLimited}`);
  if (errorLines.length > 0) console.log(`errors (first ${KEPT_ERRORS} kinds per row):\n  ${errorLines.join("\n  ")}`);

  writeResult("concurrency", {
    corpus: folder,
    server: direct.server,
    durationS: DURATION_MS / 1000,
    levels: LEVELS,
    operations: OPERATIONS,
    answerCache: values["answer-cache"],
    tenantLimits: UNTHROTTLED,
    queries,
    results: rows,
    rounds: roundRates,
    throughputRatiosAt8: ratios,
    throughputRatiosPerLevel: perLevel,
    sandbox: values.sandbox,
    rateLimited,
    errors: errorLines,
  });
} finally {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await Promise.allSettled([direct?.close(), serve?.stop(), cluster?.close(), replay?.close()]);
}
