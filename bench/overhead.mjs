#!/usr/bin/env node
// What lspmesh adds to a language server's latency, on a real corpus. Three paths, measured
// interleaved in one run (every round asks the same question through each, in rotating order,
// so machine noise hits all three alike):
//   direct   typescript-language-server over stdio (the baseline)
//   serve    `lspmesh serve DIR` (one process), the official MCP client over HTTP
//   cluster  `lspmesh gateway` + `lspmesh runner` processes with a real nats-server, API key
// Operations: find_definition, find_references, hover (textDocument/definition, references with
// the declaration, hover on the direct path) at the golden queries (bench/lib/queries.mjs).
// Prints p50/p90/p99 per operation and path, the ms added and the ratio to direct at p50, and how
// many answers through lspmesh differ from direct (number of locations and their files).
// Two phases: "repeated" asks the golden queries again after a warm-up (what lspmesh's answer cache
// serves), "first ask" asks positions no path was asked before, once each (cache misses).
// A third phase, "ask again", asks other fresh positions --asks-again times each (interleaved rounds:
// every round asks every question once through every path) and reports the first, second and last
// (tenth) ask of the same question separately: what an agent asking a question again gets
// (--pause-ms: an agent's pause between the rounds, when the runner may ask again in the background).
// For the cluster, the split of its time between runner, gateway and HTTP/MCP (from its own logs),
// and for every path the CPU time this process (the client) spends per call.
// The cluster's runner runs its language servers in the bubblewrap sandbox (LSPMESH_SANDBOX=bwrap)
// inside its tenant workers, as deployed. `--answer-cache off` starts serve and the runner with
// LSPMESH_ANSWER_CACHE=0 (every question goes to the server); LSPMESH_ANSWER_WARMING in this
// process's environment reaches serve and the runner process.
// Exports the cluster and MCP helpers bench/concurrency.mjs uses too.
// Usage: node bench/overhead.mjs [DIR] [--rounds 10] [--queries 40] [--first-asks 40] [--seed 1]
//          [--ask-again 20] [--asks-again 10] [--pause-ms 0] [--answer-cache on|off]
//   --rounds 0 skips the warm-up and the "repeated" phase; --first-asks 0 and --ask-again 0 theirs.
//   without DIR: the small fixture test/kit/fixtures/typescript-hono-shape
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { sha256Hex } from "@lspmesh/gateway";
import {
  fixturePath,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  startServe,
  waitFor,
} from "@lspmesh/test-kit";
import { connectMcp } from "./lib/cluster.mjs";
import { startDirectServer } from "./lib/directServer.mjs";
import { fileUri, goldenQueries, lspAnswerFacts, OPERATIONS, sameFacts, toolAnswerFacts } from "./lib/queries.mjs";
import { elapsedMs, percentiles, printTable, writeResult } from "./lib/stats.mjs";

export const TENANT = "bench";
/** Tenant limits far above what a benchmark reaches: the gateway's limits (default 16 concurrent, 20 calls/s) must not be what is measured. */
export const UNTHROTTLED = { concurrentCalls: 1_000_000, callsPerSecond: 1_000_000 };
const TOKEN = "bench-token-0123456789abcdef";
/** How long a path may take to answer its first definition (project load), in ms. */
const READY_TIMEOUT_MS = 180_000;
/** Deadline of one tool call in the MCP client, in ms (the gateway's own is 30 s). */
const CALL_TIMEOUT_MS = 120_000;

/** The corpus folder from the command line, or the small fixture (said on stdout). */
export function corpusFolder(positional) {
  if (positional) return resolve(positional);
  const fixture = fixturePath("typescript-hono-shape");
  console.log(`no folder given: using the small fixture ${fixture}`);
  return fixture;
}

/** A workspace id (lowercase, [a-z0-9_-]) named after the folder. */
function workspaceIdOf(folder) {
  const id = basename(folder)
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 63);
  return id || "corpus";
}

/**
 * A cluster on loopback, the way operators run it: a real nats-server with lspmesh's
 * authorization, one `lspmesh runner` whose volume holds a copy of the corpus at
 * <root>/<tenant>/<workspace> (the runner refuses paths that resolve outside its root, so no
 * symlink), one `lspmesh gateway` with an API key for the tenant. `limits` go into the tenants file
 * (default: unthrottled), `runnerEnv` (LSPMESH_* settings) to the runner.
 */
export async function startMeshCluster(folder, { limits = UNTHROTTLED, runnerEnv, gatewayEnv } = {}) {
  const root = mkdtempSync(join(tmpdir(), "lspmesh-bench-"));
  const workspace = workspaceIdOf(folder);
  const workspaces = join(root, "workspaces");
  let nats;
  let runner;
  let gateway;
  const close = async () => {
    await gateway?.stop();
    await runner?.stop();
    await nats?.close();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    mkdirSync(join(workspaces, TENANT), { recursive: true });
    // .git is history, nothing a language server reads.
    cpSync(folder, join(workspaces, TENANT, workspace), {
      recursive: true,
      filter: (source) => basename(source) !== ".git",
    });
    const apiKeysFile = join(root, "api-keys.json");
    writeFileSync(
      apiKeysFile,
      JSON.stringify({ keys: [{ id: "bench-agent", sha256: sha256Hex(TOKEN), tenant: TENANT, scopes: ["lsp:read"] }] }),
    );
    const tenantsFile = join(root, "tenants.json");
    writeFileSync(tenantsFile, JSON.stringify({ tenants: { [TENANT]: { workspaces: [workspace], limits } } }));
    nats = await startNatsServer({ secured: { tenants: [TENANT] } });
    runner = await startRunnerProcess(workspaces, nats, "bench-runner", { env: runnerEnv });
    gateway = await startGatewayProcess({
      natsUrl: nats,
      apiKeysFile,
      tenantsFile,
      ...(gatewayEnv ? { env: gatewayEnv } : {}),
    });
    const at = gateway;
    await waitFor(
      "the runner registered with the gateway",
      async () => (await at.metrics()).match(/lspmesh_runners_live (\d+)/)?.[1] === "1",
    );
    return { url: new URL("/mcp", gateway.url), token: TOKEN, workspace, runner, gateway, nats, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** An MCP client (the official 2.x client) connected over Streamable HTTP. */
export { connectMcp };

/** Calls a tool of the golden-query operations; returns the answer's facts (never throws for tool errors). */
export async function callOperation(client, operation, query) {
  const result = await client.callTool(
    { name: operation, arguments: OPERATIONS[operation].toolArguments(query) },
    { timeout: CALL_TIMEOUT_MS },
  );
  return toolAnswerFacts(operation, result);
}

/** Calls find_definition at `query` until a complete, non-empty answer: the project is loaded. */
export async function waitUntilMeshReady(client, query) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const facts = await callOperation(client, "find_definition", query).catch((error) => ({ error: error.message }));
    if (!facts.error && !facts.partial && facts.count > 0) return;
    if (Date.now() > deadline)
      throw new Error(`lspmesh gave no definition within ${READY_TIMEOUT_MS} ms: ${JSON.stringify(facts)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The direct server as a path: the LSP request of an operation, its answer's facts. */
export function directPath(server, folder) {
  return {
    name: "direct",
    call: async (operation, query) => {
      const { lspMethod, lspParams } = OPERATIONS[operation];
      const result = await server.request(lspMethod, query.file, lspParams(fileUri(folder, query.file), query));
      return lspAnswerFacts(operation, result, folder);
    },
  };
}

export function meshPath(name, client) {
  return { name, call: (operation, query) => callOperation(client, operation, query) };
}

/** Durations (ms) of the cluster's own log lines in stderr text: gateway "tool call" and runner "rpc", by request id. */
function loggedDurations(text, msg) {
  const byRequest = new Map();
  for (const line of text.split("\n")) {
    if (!line.includes(`"msg":"${msg}"`)) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.requestId) byRequest.set(entry.requestId, { name: entry.tool ?? entry.method, ms: entry.durationMs });
    } catch {
      // a partial line at the end of what was read
    }
  }
  return byRequest;
}

/** The runner's answer cache counters (hit/miss/shared) from its Prometheus text; undefined when it has none. */
export function answerCacheCounts(metricsText) {
  const counts = {};
  for (const match of metricsText.matchAll(/^lspmesh_runner_answer_cache_total\{result="(\w+)"\} (\d+)/gm))
    counts[match[1]] = Number(match[2]);
  return Object.keys(counts).length > 0 ? counts : undefined;
}

/** Hit rate of the answer cache between two readings: (hit + shared) / all, or NaN without counters. */
export function cacheHitRate(before, after) {
  if (!before || !after) return Number.NaN;
  const delta = (result) => (after[result] ?? 0) - (before[result] ?? 0);
  const all = delta("hit") + delta("shared") + delta("miss");
  return all > 0 ? (delta("hit") + delta("shared")) / all : Number.NaN;
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rounds: { type: "string", default: "10" },
      queries: { type: "string", default: "40" },
      "first-asks": { type: "string" },
      "ask-again": { type: "string", default: "20" },
      "asks-again": { type: "string", default: "10" },
      "answer-cache": { type: "string", default: "on" },
      "pause-ms": { type: "string", default: "0" },
      seed: { type: "string", default: "1" },
    },
  });
  const rounds = Number(values.rounds);
  const count = Number(values.queries);
  const firstAskCount = Number(values["first-asks"] ?? count);
  const askAgainCount = Number(values["ask-again"]);
  const asksAgain = Math.max(2, Number(values["asks-again"]));
  const cacheEnv = values["answer-cache"] === "off" ? { LSPMESH_ANSWER_CACHE: "0" } : {};
  const folder = corpusFolder(positionals[0]);
  // One pool: the golden queries, then positions asked once only (never seen by lspmesh's answer
  // cache), then positions asked again and again.
  const pool = goldenQueries(folder, { count: count + firstAskCount + askAgainCount, seed: Number(values.seed) });
  const queries = pool.slice(0, count);
  const firstAsks = pool.slice(count, count + firstAskCount);
  const askedAgain = pool.slice(count + firstAskCount);
  if (pool.length === 0) throw new Error(`no golden queries in ${folder} (no TypeScript usages found)`);
  const operations = Object.keys(OPERATIONS);
  console.log(
    `corpus ${folder}: ${queries.length} golden queries in ${new Set(queries.map((q) => q.file)).size} files ` +
      `(${rounds} rounds after a warm-up) + ${firstAsks.length} positions asked once + ${askedAgain.length} asked ${asksAgain} times; ` +
      `${operations.length} operations × 3 paths; answer cache ${values["answer-cache"]}, warming ${process.env.LSPMESH_ANSWER_WARMING ?? "default"}`,
  );

  let direct;
  let serve;
  let cluster;
  const clients = [];
  try {
    const started = Date.now();
    // Started together (each waits on its own child); whatever started is closed below even when another failed.
    const starting = await Promise.allSettled([
      startDirectServer(folder),
      startServe(folder, ["--quiet"], { env: cacheEnv }),
      // debug: one "rpc" line per call, with its duration; the servers sandboxed (required, not "where it works").
      startMeshCluster(folder, {
        runnerEnv: { LSPMESH_LOG_LEVEL: "debug", LSPMESH_SANDBOX: "bwrap", ...cacheEnv },
        // Answers not remembered: not at the gateway either.
        gatewayEnv: values["answer-cache"] === "off" ? { LSPMESH_GATEWAY_ANSWER_CACHE: "0" } : {},
      }),
    ]);
    [direct, serve, cluster] = starting.map((outcome) => outcome.value);
    const failed = starting.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
    const serveClient = await connectMcp(serve.url);
    clients.push(serveClient);
    const clusterClient = await connectMcp(cluster.url, cluster.token);
    clients.push(clusterClient);
    await Promise.all([
      direct.waitUntilReady(pool[0]),
      waitUntilMeshReady(serveClient, pool[0]),
      waitUntilMeshReady(clusterClient, pool[0]),
    ]);
    console.log(
      `cluster: tenant limits ${UNTHROTTLED.concurrentCalls} concurrent calls, ${UNTHROTTLED.callsPerSecond} calls/s (not what is measured); runner log level debug (one line per RPC, for the split below)`,
    );
    console.log(
      `all three paths answer (${((Date.now() - started) / 1000).toFixed(1)} s after start); ${direct.server}`,
    );
    const paths = [directPath(direct, folder), meshPath("serve", serveClient), meshPath("cluster", clusterClient)];

    const PHASES = ["repeated", "first ask"];
    // "<phase> <operation> <path>" → latencies and client CPU (ms) of answered calls, errors, partial
    // answers, and the queries whose answer differs from direct's.
    const series = new Map();
    const seriesOf = (key) => {
      if (!series.has(key))
        series.set(key, {
          samples: [],
          clientCpu: [],
          errors: 0,
          partial: 0,
          firstError: undefined,
          mismatched: new Map(),
        });
      return series.get(key);
    };
    for (const phase of PHASES)
      for (const operation of operations) for (const path of paths) seriesOf(`${phase} ${operation} ${path.name}`);

    /** One question through every path in the given order; lspmesh's answers are compared with direct's. */
    const askAll = async (phase, operation, query, order, record) => {
      const answers = new Map();
      for (const path of order) {
        const start = process.hrtime.bigint();
        // This process does nothing else meanwhile: its CPU time is the client's cost of the call.
        const cpuStart = process.cpuUsage();
        let facts;
        try {
          facts = await path.call(operation, query);
        } catch (error) {
          facts = { count: 0, files: [], error: error.message };
        }
        const ms = elapsedMs(start);
        const cpu = process.cpuUsage(cpuStart);
        answers.set(path.name, facts);
        if (!record) continue;
        const entry = seriesOf(`${phase} ${operation} ${path.name}`);
        if (facts.error) {
          entry.errors++;
          entry.firstError ??= facts.error;
        } else {
          entry.samples.push(ms);
          entry.clientCpu.push((cpu.user + cpu.system) / 1000);
          if (facts.partial) entry.partial++;
        }
      }
      const want = answers.get("direct");
      if (!record || want.error) return;
      for (const path of paths.slice(1)) {
        const got = answers.get(path.name);
        const entry = seriesOf(`${phase} ${operation} ${path.name}`);
        const where = `${query.file}:${query.line}:${query.column} ${query.name}`;
        if (!got.error && !sameFacts(want, got) && !entry.mismatched.has(where))
          entry.mismatched.set(where, { direct: want, lspmesh: got });
      }
    };
    /** Rotating order: over the calls each path goes first, second and third equally often. */
    const rotated = (shift) => paths.map((_, p) => paths[(p + shift) % paths.length]);

    const logMarks = () => ({
      gateway: cluster.gateway.stderr().length,
      runner: cluster.runner.stderr().length,
    });
    const phaseLogs = new Map();

    // Warm-up, not recorded: every golden query through every path, twice. The first pass opens
    // the files, and each file the runner opens drops the answers it remembered before (its
    // content epoch moves); the second pass leaves the answer cache as a steady agent would.
    const pauseMs = Number(values["pause-ms"]);
    const askAgainRows = await askAgainPhase({
      askedAgain,
      asksAgain,
      pauseMs,
      operations,
      askAll,
      rotated,
      paths,
      series,
    });

    const warmStart = Date.now();
    for (let pass = 0; pass < (rounds > 0 ? 2 : 0); pass++)
      for (const operation of operations)
        for (const [index, query] of queries.entries())
          await askAll("repeated", operation, query, rotated(index), false);
    console.log(`warm-up: ${((Date.now() - warmStart) / 1000).toFixed(1)} s`);

    const cacheBefore = answerCacheCounts(await cluster.runner.metrics());
    let mark = logMarks();
    for (let round = 0; round < rounds; round++) {
      for (const [index, query] of queries.entries())
        for (const [o, operation] of operations.entries())
          await askAll("repeated", operation, query, rotated(round + index + o), true);
      process.stdout.write(`\rround ${round + 1}/${rounds}`);
    }
    process.stdout.write("\n");
    const cacheMiddle = answerCacheCounts(await cluster.runner.metrics());
    phaseLogs.set("repeated", { from: mark, to: logMarks() });

    // First asks: positions no path was asked before, each once.
    mark = logMarks();
    for (const [index, query] of firstAsks.entries())
      for (const [o, operation] of operations.entries())
        await askAll("first ask", operation, query, rotated(index + o), true);
    const cacheAfter = answerCacheCounts(await cluster.runner.metrics());
    phaseLogs.set("first ask", { from: mark, to: logMarks() });
    const hitRates = {
      repeated: cacheHitRate(cacheBefore, cacheMiddle),
      "first ask": cacheHitRate(cacheMiddle, cacheAfter),
    };

    const rows = [];
    for (const phase of PHASES) {
      for (const operation of operations) {
        const base = percentiles(series.get(`${phase} ${operation} direct`).samples);
        for (const path of paths) {
          const entry = series.get(`${phase} ${operation} ${path.name}`);
          const stats = percentiles(entry.samples);
          const isDirect = path.name === "direct";
          rows.push({
            phase,
            operation,
            path: path.name,
            calls: stats.count,
            "p50 ms": stats.p50,
            "p90 ms": stats.p90,
            "p99 ms": stats.p99,
            "added p50 ms": isDirect ? Number.NaN : stats.p50 - base.p50,
            "× direct p50": isDirect ? Number.NaN : stats.p50 / base.p50,
            "client cpu ms": percentiles(entry.clientCpu).p50,
            mismatches: isDirect ? "" : entry.mismatched.size,
            errors: entry.errors,
            partial: isDirect ? "" : entry.partial,
          });
        }
      }
    }
    console.log(
      "\nclient cpu ms: p50 of this process's CPU time per call (the LSP client, or the official MCP client over HTTP)",
    );
    printTable(
      `lspmesh overhead vs typescript-language-server direct (interleaved; "repeated": ${queries.length} queries × ${rounds} rounds after a warm-up, "first ask": ${firstAsks.length} positions asked once)`,
      [
        "phase",
        "operation",
        "path",
        "calls",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "added p50 ms",
        "× direct p50",
        "client cpu ms",
        "mismatches",
        "errors",
        "partial",
      ],
      rows,
    );
    console.log(
      `cluster runner answer cache hit rate: repeated ${formatRate(hitRates.repeated)}, first ask ${formatRate(hitRates["first ask"])}`,
    );

    // Where the cluster's time goes, from its own logs (whole ms): the runner's RPC, the gateway's
    // tool call around it, and the rest (HTTP, MCP, the client) up to what the client measured.
    const splitRows = [];
    for (const phase of PHASES) {
      const { from, to } = phaseLogs.get(phase);
      const tools = loggedDurations(cluster.gateway.stderr().slice(from.gateway, to.gateway), "tool call");
      const rpcs = loggedDurations(cluster.runner.stderr().slice(from.runner, to.runner), "rpc");
      for (const operation of operations) {
        const gatewayMs = [];
        const runnerMs = [];
        const gatewayOwnMs = [];
        for (const [requestId, tool] of tools) {
          if (tool.name !== operation) continue;
          gatewayMs.push(tool.ms);
          const rpc = rpcs.get(requestId);
          if (rpc) {
            runnerMs.push(rpc.ms);
            gatewayOwnMs.push(tool.ms - rpc.ms);
          }
        }
        const client = percentiles(series.get(`${phase} ${operation} cluster`).samples).p50;
        const gateway = percentiles(gatewayMs).p50;
        splitRows.push({
          phase,
          operation,
          "client p50 ms": client,
          "gateway tool p50 ms": gateway,
          "runner rpc p50 ms": percentiles(runnerMs).p50,
          "gateway − rpc p50 ms": percentiles(gatewayOwnMs).p50,
          "client − gateway (HTTP+MCP) ms": client - gateway,
          "of which client cpu ms": percentiles(series.get(`${phase} ${operation} cluster`).clientCpu).p50,
          "direct p50 ms": percentiles(series.get(`${phase} ${operation} direct`).samples).p50,
        });
      }
    }
    printTable(
      "where the cluster path's time goes (p50s; gateway and runner from their own logs, whole ms)",
      [
        "phase",
        "operation",
        "client p50 ms",
        "gateway tool p50 ms",
        "runner rpc p50 ms",
        "gateway − rpc p50 ms",
        "client − gateway (HTTP+MCP) ms",
        "of which client cpu ms",
        "direct p50 ms",
      ],
      splitRows,
    );

    const differing = [...series.entries()].flatMap(([where, entry]) =>
      [...entry.mismatched.entries()].map(([query, difference]) => ({ where, query, ...difference })),
    );
    if (differing.length > 0) {
      console.log(`\nanswers that differ from direct (${differing.length}; first 10):`);
      for (const difference of differing.slice(0, 10))
        console.log(
          `  ${difference.where} at ${difference.query}: direct ${difference.direct.count} in [${difference.direct.files.join(", ")}], ` +
            `lspmesh ${difference.lspmesh.count} in [${difference.lspmesh.files.join(", ")}]`,
        );
    }
    const firstErrors = [...series.entries()].filter(([, entry]) => entry.firstError);
    for (const [where, entry] of firstErrors) console.log(`first error of ${where}: ${entry.firstError}`);

    writeResult("overhead", {
      corpus: folder,
      server: direct.server,
      rounds,
      queries,
      firstAsks,
      results: rows,
      clusterSplit: splitRows,
      answerCacheHitRate: hitRates,
      answerCache: values["answer-cache"],
      answerWarming: process.env.LSPMESH_ANSWER_WARMING ?? "default",
      askedAgain,
      askAgain: askAgainRows,
      mismatches: differing,
      errors: Object.fromEntries(
        firstErrors.map(([where, entry]) => [where, { count: entry.errors, first: entry.firstError }]),
      ),
    });
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await Promise.allSettled([direct?.close(), serve?.stop(), cluster?.close()]);
  }
}

/**
 * "ask again": every question `asksAgain` times through every path, one round after another (each
 * round asks every question once, paths in rotating order). Prints and returns the first, second
 * and last ask per operation and path, with the cluster runner's cache hit rate per round.
 */
async function askAgainPhase({ askedAgain, asksAgain, pauseMs, operations, askAll, rotated, paths, series }) {
  if (askedAgain.length === 0) return [];
  const reported = [1, 2, asksAgain];
  for (let round = 1; round <= asksAgain; round++) {
    for (const [index, query] of askedAgain.entries())
      for (const [o, operation] of operations.entries())
        await askAll(`ask ${round}`, operation, query, rotated(round + index + o), reported.includes(round));
    process.stdout.write(`\rask again: round ${round}/${asksAgain}`);
    // An agent's pause between going over the same questions again (--pause-ms; 0: none).
    if (pauseMs > 0 && round < asksAgain) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  process.stdout.write("\n");
  const rows = [];
  for (const operation of operations)
    for (const path of paths) {
      const last = percentiles([...series.get(`ask ${asksAgain} ${operation} ${path.name}`).samples]);
      for (const round of reported) {
        const entry = series.get(`ask ${round} ${operation} ${path.name}`);
        const stats = percentiles(entry.samples);
        rows.push({
          operation,
          path: path.name,
          ask: round,
          calls: stats.count,
          "p50 ms": stats.p50,
          "p90 ms": stats.p90,
          "p99 ms": stats.p99,
          [`÷ ask ${asksAgain} p50`]: stats.p50 / last.p50,
          mismatches: path.name === "direct" ? "" : entry.mismatched.size,
          errors: entry.errors,
        });
      }
    }
  printTable(
    `the same question asked again (${askedAgain.length} positions × ${asksAgain} asks, interleaved rounds, ${pauseMs} ms pause between rounds): first, second and last ask`,
    [
      "operation",
      "path",
      "ask",
      "calls",
      "p50 ms",
      "p90 ms",
      "p99 ms",
      `÷ ask ${asksAgain} p50`,
      "mismatches",
      "errors",
    ],
    rows,
  );
  return rows;
}

export function formatRate(rate) {
  return Number.isFinite(rate) ? `${(rate * 100).toFixed(1)} %` : "-";
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
