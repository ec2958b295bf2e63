#!/usr/bin/env node
// Where the CPU goes under load. Runs `lspmesh serve` (or `lspmesh gateway` + `lspmesh runner`
// processes with NATS) under V8's CPU profiler (lib/cpuProfiler.mjs, preloaded), drives it with K MCP clients calling find_definition
// and hover over the golden queries for a while, stops it, and sums each process's profile by
// owner: lspmesh's own code (gateway, runner, grpc), the libraries it runs on (MCP SDK, grpc-js,
// zod, vscode-jsonrpc, …), Node internals, GC. Profiling covers only the driven load (SIGUSR2
// before and after it), not start-up, the warm-up or shutdown. The language server's own time is what hops.mjs measures.
// Usage: node bench/profile.mjs [folder] [--mode serve|cluster] [--callers 8] [--seconds 15] [--settle-s 20]
//          [--operations find_definition,hover] [--answer-cache on|off]
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startServe, waitFor } from "@lspmesh/test-kit";
import { connectMcp, copyWorkspace, corpusFolder, startCluster, TOKEN, withEnv } from "./lib/cluster.mjs";
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
  },
});
const folder = corpusFolder(positionals[0]).dir;
const callers = Number(values.callers);
const seconds = Number(values.seconds);
const queries = goldenQueries(folder, { count: 40 });
const profileDir = mkdtempSync(join(tmpdir(), "lspmesh-profile-"));
const operations = values.operations.split(",");

/** The owner of a profiled function, by its script URL. */
function ownerOf(url, functionName) {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  if (url.startsWith("node:")) return `node ${url.slice(5).split("/").slice(0, 2).join("/")}`;
  const path = url.replace(/^file:\/\//, "");
  for (const [marker, owner] of [
    ["/services/gateway/", "lspmesh gateway"],
    ["/services/lsp-runner/", "lspmesh runner"],
    ["/packages/grpc/", "lspmesh grpc adapter"],
    ["/packages/events/", "lspmesh events"],
    ["/packages/service-kit/", "lspmesh service-kit"],
    ["/proto/", "lspmesh proto"],
    ["/apps/cli/", "lspmesh cli"],
  ]) {
    if (path.includes(marker) && !path.includes("/node_modules/")) return owner;
  }
  const modules = path.split("/node_modules/");
  if (modules.length > 1) {
    const parts = modules[modules.length - 1].split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  return path;
}

/** A profile summed by owner: { process, busyMs, owners: [[owner, ms]] } (idle excluded). */
function summarize(file) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    selfMs.set(node.id, (selfMs.get(node.id) ?? 0) + ms);
  }
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  // A builtin (JSON.parse, a RegExp, a Buffer copy) counts for the code that called it.
  const ownerOfNode = (node) => {
    let owner;
    for (let at = node; at; at = parentOf.get(at.id)) {
      const { url, functionName } = at.callFrame;
      // Starting the profiler itself (lib/cpuProfiler.mjs) is not the load's.
      if (url.endsWith("/cpuProfiler.mjs")) return "(idle)";
      if (!owner && (url || functionName.startsWith("("))) owner = ownerOf(url, functionName);
    }
    return owner ?? "(native)";
  };
  const owners = new Map();
  const urls = profile.nodes.map((node) => node.callFrame.url);
  const gateway = urls.some((url) => url.includes("/services/gateway/"));
  const runner = urls.some((url) => url.includes("/services/lsp-runner/"));
  const processName =
    gateway && runner ? "lspmesh serve" : gateway ? "lspmesh gateway" : runner ? "lspmesh runner" : "node";
  for (const node of profile.nodes) {
    const ms = selfMs.get(node.id) ?? 0;
    if (ms === 0) continue;
    const owner = ownerOfNode(node);
    owners.set(owner, (owners.get(owner) ?? 0) + ms);
  }
  owners.delete("(idle)");
  const busyMs = [...owners.values()].reduce((sum, ms) => sum + ms, 0);
  return { process: processName, busyMs, owners: [...owners].sort((a, b) => b[1] - a[1]) };
}

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
try {
  const env = {
    NODE_OPTIONS: `--import ${new URL("./lib/cpuProfiler.mjs", import.meta.url).href}`,
    LSPMESH_BENCH_PROFILE_DIR: profileDir,
    ...(values["answer-cache"] === "off" ? { LSPMESH_ANSWER_CACHE: "0" } : {}),
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
    const cluster = await withEnv(env, () => startCluster({ root, workspaces: ["corpus"] }));
    closers.push(() => cluster.close());
    copyWorkspace(folder, join(cluster.volume, "bench", "corpus"));
    url = cluster.gateway.url;
    token = TOKEN;
    profiled = [cluster.gateway.pid, cluster.runner.pid];
  }
  const clients = [];
  for (let i = 0; i < callers; i++) {
    const client = await connectMcp(url, token);
    closers.push(() => client.close());
    clients.push(client);
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
  calls = await drive(clients);
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
  .map((name) => summarize(join(profileDir, name)))
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
writeResult("profile", {
  corpus: folder,
  mode: values.mode,
  callers,
  seconds,
  calls,
  processes: summaries.map((summary) => ({
    process: summary.process,
    busyMs: summary.busyMs,
    owners: summary.owners.slice(0, 20),
  })),
});
