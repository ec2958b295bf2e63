#!/usr/bin/env node
// Where the CPU goes under load. Runs `lspmesh serve` (or `lspmesh gateway` + `lspmesh runner`
// processes with NATS) under V8's CPU profiler (lib/cpuProfiler.mjs, preloaded), drives it with K MCP clients calling find_definition
// and hover over the golden queries for a while, stops it, and sums each process's profile by
// owner: lspmesh's own code (gateway, runner, grpc), the libraries it runs on (MCP SDK, grpc-js,
// zod, vscode-jsonrpc, …), Node internals, GC. Profiling covers only the driven load (SIGUSR2
// before and after it), not start-up, the warm-up or shutdown. The language server's own time is what hops.mjs measures.
// Beside the profiles, every process's CPU during the load from /proc (lib/processCpu.mjs): lspmesh's
// processes, the language servers under them (tsserver, typescript-language-server), nats-server,
// the bench's own clients and the rest of the machine; it says which is the largest CPU user.
// 64 or 256 callers work (--callers); in cluster mode the runner's language servers run under
// bubblewrap (--sandbox bwrap, the default; auto or none to compare).
// Usage: node bench/profile.mjs [folder] [--mode serve|cluster] [--callers 8] [--seconds 15] [--settle-s 20]
//          [--operations find_definition,hover] [--answer-cache on|off] [--sandbox bwrap|auto|none]
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startServe, waitFor } from "@lspmesh/test-kit";
import { connectMcp, copyWorkspace, corpusFolder, startCluster, TOKEN, withEnv } from "./lib/cluster.mjs";
import { cpuByRole, largestUser, processSnapshot } from "./lib/processCpu.mjs";
import { summarizeProfile } from "./lib/profileOwners.mjs";
import { goldenQueries, OPERATIONS } from "./lib/queries.mjs";
import { printTable, writeResult } from "./lib/stats.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mode: { type: "string", default: "serve" },
    callers: { type: "string", default: "8" },
    seconds: { type: "string", default: "15" },
    "settle-s": { type: "string", default: "20" },
    operations: { type: "string", default: "find_definition,hover" },
    "answer-cache": { type: "string", default: "on" },
    sandbox: { type: "string", default: "bwrap" },
  },
});
const folder = corpusFolder(positionals[0]).dir;
const callers = Number(values.callers);
const seconds = Number(values.seconds);
const queries = goldenQueries(folder, { count: 40 });
const profileDir = mkdtempSync(join(tmpdir(), "lspmesh-profile-"));
const operations = values.operations.split(",");
/** Clients connecting at once (256 one by one would take long; all at once would time out). */
const CONNECT_BATCH = 32;
// The gateway's cap on open connections (default 1024) must not be what is measured.
if (callers * 4 > 1024) process.env.LSPMESH_MAX_CONNECTIONS = String(callers * 4);

/** K clients calling in a loop until the time is up; returns the number of calls made. */
async function drive(clients) {
  const until = Date.now() + seconds * 1000;
  let calls = 0;
  await Promise.all(
    clients.map(async (client, index) => {
      for (let i = index; Date.now() < until; i++) {
        const query = queries[i % queries.length];
        const operation = operations[i % operations.length];
        await client.callTool({ name: operation, arguments: OPERATIONS[operation].toolArguments(query) });
        calls++;
      }
    }),
  );
  return calls;
}

const root = mkdtempSync(join(tmpdir(), "lspmesh-profile-root-"));
const closers = [];
let calls = 0;
/** The role of each process whose tree is the benchmark's: { pid: name }. */
let roles = {};
/** CPU ms of every process during the load, by role (lib/processCpu.mjs). */
let processCpu = [];
try {
  const env = {
    NODE_OPTIONS: `--import ${new URL("./lib/cpuProfiler.mjs", import.meta.url).href}`,
    LSPMESH_BENCH_PROFILE_DIR: profileDir,
    // Off everywhere: the runner's cache and the cluster gateway's own cache of read answers.
    ...(values["answer-cache"] === "off" ? { LSPMESH_ANSWER_CACHE: "0", LSPMESH_GATEWAY_ANSWER_CACHE: "0" } : {}),
  };
  let url;
  let token;
  let profiled;
  if (values.mode === "serve") {
    const serve = await withEnv(env, () => startServe(folder, ["--quiet"]));
    closers.push(() => serve.stop());
    url = serve.url;
    profiled = [serve.child.pid];
  } else {
    const cluster = await withEnv(env, () =>
      startCluster({
        root,
        workspaces: ["corpus"],
        runnerOptions: { env: { LSPMESH_SANDBOX: values.sandbox } },
        limits: { callsPerSecond: 100_000, concurrentCalls: 100_000 },
      }),
    );
    closers.push(() => cluster.close());
    copyWorkspace(folder, join(cluster.volume, "bench", "corpus"));
    url = cluster.gateway.url;
    token = TOKEN;
    profiled = [cluster.gateway.pid, cluster.runner.pid];
    roles = {
      [cluster.gateway.pid]: "lspmesh gateway",
      [cluster.runner.pid]: "lspmesh runner",
      [cluster.nats.pid()]: "nats-server",
    };
  }
  if (values.mode === "serve") roles = { [profiled[0]]: "lspmesh serve" };
  roles[process.pid] = "bench clients";
  const clients = [];
  for (let i = 0; i < callers; i += CONNECT_BATCH) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(CONNECT_BATCH, callers - i) }, () => connectMcp(url, token)),
    );
    for (const client of batch) {
      closers.push(() => client.close());
      clients.push(client);
    }
  }
  const workspace = values.mode === "serve" ? {} : { workspace: "corpus" };
  // Warm-up: every query once (projects loaded); profiling starts after it.
  for (const query of queries)
    for (const operation of operations)
      await clients[0].callTool({
        name: operation,
        arguments: { ...OPERATIONS[operation].toolArguments(query), ...workspace },
      });
  if (values.mode !== "serve") {
    // The cluster's tools name the workspace.
    for (const client of clients) {
      const call = client.callTool.bind(client);
      client.callTool = (request, ...rest) =>
        call({ ...request, arguments: { ...request.arguments, ...workspace } }, ...rest);
    }
  }
  // The symbol index is built in the background after start: let it finish before profiling.
  await new Promise((resolve) => setTimeout(resolve, Number(values["settle-s"]) * 1000));
  for (const pid of profiled) process.kill(pid, "SIGUSR2");
  const before = processSnapshot();
  calls = await drive(clients);
  processCpu = cpuByRole(before, processSnapshot(), roles);
  for (const pid of profiled) process.kill(pid, "SIGUSR2");
  await waitFor(
    "the profiles written",
    () => profiled.every((pid) => existsSync(join(profileDir, `${pid}.cpuprofile`))),
    { timeoutMs: 30_000 },
  );
} finally {
  for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => {});
  rmSync(root, { recursive: true, force: true });
}

const summaries = readdirSync(profileDir)
  .filter((name) => name.endsWith(".cpuprofile"))
  .map((name) => summarizeProfile(join(profileDir, name)))
  .filter((summary) => summary.busyMs > 50);
const rows = [];
for (const summary of summaries.sort((a, b) => b.busyMs - a.busyMs)) {
  for (const [owner, ms] of summary.owners.slice(0, 10)) {
    rows.push({ process: summary.process, owner, "cpu ms": ms, "% of process": (100 * ms) / summary.busyMs });
  }
}
console.log(`${calls} calls by ${callers} clients in ${seconds} s (${values.mode}); profiles in ${profileDir}`);
printTable(
  "CPU by owner, per process (self time, idle excluded)",
  ["process", "owner", "cpu ms", "% of process"],
  rows,
  1,
);
const withShares = processCpu.map((row) => ({
  ...row,
  "ms per call": calls > 0 ? row["cpu ms"] / calls : Number.NaN,
}));
printTable(
  `CPU of every process during the load (/proc), ${calls} calls; language servers are the ones under lspmesh's processes`,
  ["process", "cpu ms", "ms per call"],
  withShares,
  2,
);
const verdict = largestUser(processCpu);
console.log(
  `largest CPU user: ${verdict.top}; language servers (tsserver + typescript-language-server) ${verdict.languageServers.toFixed(0)} ms` +
    ` vs lspmesh's processes ${verdict.lspmesh.toFixed(0)} ms: ${verdict.larger} use more`,
);
writeResult("profile", {
  corpus: folder,
  mode: values.mode,
  callers,
  seconds,
  calls,
  sandbox: values.mode === "cluster" ? values.sandbox : undefined,
  processCpu: withShares,
  largestCpuUser: verdict,
  processes: summaries.map((summary) => ({
    process: summary.process,
    busyMs: summary.busyMs,
    owners: summary.owners.slice(0, 20),
  })),
});
