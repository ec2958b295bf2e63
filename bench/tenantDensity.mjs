#!/usr/bin/env node
// How many small tenants one runner holds with tenant workers (docs/deploy.md, "Sizing"): one
// `lspmesh runner` (LSPMESH_WORKERS=auto: a Landlock-confined worker process per tenant) behind a
// gateway and a secured nats-server, 20 tenants each with a copy of the small TypeScript fixture
// (or the folder given). Figures: the runner's own memory, an idle worker's (its process alone,
// after its language server stopped), a warm tenant's (worker + language server), and the p50/p90
// of hover through the gateway for one tenant alone (the baseline, measured in the same run)
// against the same calls spread over 20 warm tenants, one after another and all at once.
// Usage: npx node bench/tenantDensity.mjs [FOLDER] [TENANTS]   (after `npm ci`: Node 22, whose
// process.execve workers need; Linux with Landlock)
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  chownTree,
  descendantPids,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  UNPRIVILEGED_USER,
  waitFor,
  writeTenancyFiles,
} from "@lspmesh/test-kit";
import { callTool, connectMcp, copyWorkspace, corpusFolder, MiB, rssBytes, sleep, stopRunner } from "./lib/cluster.mjs";
import { elapsedMs, percentiles, printTable, writeResult } from "./lib/stats.mjs";

const { dir: corpus, fallback } = corpusFolder(process.argv[2]);
const TENANTS = Number(process.argv[3] ?? 20);
const CALLS = 200;
const asRoot = process.getuid?.() === 0;
const tenantIds = Array.from({ length: TENANTS }, (_, index) => `t${String(index).padStart(2, "0")}`);

const root = mkdtempSync(join(tmpdir(), "lspmesh-bench-density-"));
const closers = [];
const close = async () => {
  for (const closer of closers.reverse()) await closer().catch((error) => console.error(`cleanup: ${error.message}`));
  rmSync(root, { recursive: true, force: true });
};

/** [pid, command line] of the runner's processes. */
function processTree(runnerPid) {
  return descendantPids(runnerPid);
}

/** The worker processes of the runner (its direct node children running workerMain). */
async function workerPids(runnerPid) {
  const { readFileSync } = await import("node:fs");
  return processTree(runnerPid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerMain");
    } catch {
      return false;
    }
  });
}

const sumRss = (pids) => pids.reduce((sum, pid) => sum + rssBytes(pid), 0);

try {
  const volume = join(root, "workspaces");
  for (const tenant of tenantIds) copyWorkspace(corpus, join(volume, tenant, "app"));
  if (asRoot) {
    // Workers run as nobody: the folders above the workspaces must let it through.
    chmodSync(root, 0o755);
    for (const tenant of tenantIds) chownTree(join(volume, tenant));
  }
  const tenancy = writeTenancyFiles(root, {
    tenants: Object.fromEntries(
      tenantIds.map((tenant) => [tenant, { workspaces: ["app"], limits: { callsPerSecond: 10_000, concurrentCalls: 64 } }]),
    ),
    keys: Object.fromEntries(tenantIds.map((tenant) => [tenant, { tenant, scopes: ["lsp:read"] }])),
  });
  const nats = await startNatsServer({ secured: { tenants: tenantIds, runners: [{ id: "density-0" }] } });
  closers.push(() => nats.close());
  const runner = await startRunnerProcess(volume, nats, "density-0", {
    env: {
      LSPMESH_WORKERS: "auto",
      LSPMESH_SANDBOX: "none",
      ...(asRoot ? { LSPMESH_WORKER_USER: `${UNPRIVILEGED_USER.uid}:${UNPRIVILEGED_USER.gid}` } : {}),
    },
  });
  closers.push(() => stopRunner(runner));
  const gateway = await startGatewayProcess({ natsUrl: nats, ...tenancy });
  closers.push(() => gateway.stop());
  await waitFor("the runner at the gateway", async () => (await gateway.liveRunners()) === 1, { timeoutMs: 60_000 });
  await sleep(1_000);
  const runnerAlone = rssBytes(runner.pid);

  const clients = new Map();
  for (const tenant of tenantIds) {
    const client = await connectMcp(gateway.url, tenancy.tokens[tenant], `density-${tenant}`);
    closers.push(() => client.close());
    clients.set(tenant, client);
  }
  // The call measured: hover on the first identifier of the fixture's main file.
  const hover = (tenant) =>
    callTool(clients.get(tenant), "hover", { workspace: "app", file: "src/main.ts", line: 1, column: 10 });
  const warm = async (tenant) => {
    await waitFor(`${tenant} warm`, async () => (await hover(tenant)).partial === false, { timeoutMs: 120_000 });
  };
  const timed = async (tenant) => {
    const started = process.hrtime.bigint();
    await hover(tenant);
    return elapsedMs(started);
  };

  // One tenant alone.
  await warm(tenantIds[0]);
  const alone = [];
  for (let call = 0; call < CALLS; call++) alone.push(await timed(tenantIds[0]));
  const oneWarm = sumRss([...(await workerPids(runner.pid)).flatMap((pid) => [pid, ...descendantPids(pid)])]);

  // Every tenant warm, then the same calls spread over them: one after another, then all at once.
  for (const tenant of tenantIds.slice(1)) await warm(tenant);
  const spread = [];
  for (let call = 0; call < CALLS; call++) spread.push(await timed(tenantIds[call % TENANTS]));
  const together = [];
  await Promise.all(
    tenantIds.map(async (tenant) => {
      for (let call = 0; call < CALLS / TENANTS; call++) together.push(await timed(tenant));
    }),
  );
  const workers = await workerPids(runner.pid);
  const allWarm = sumRss([runner.pid, ...descendantPids(runner.pid)]);
  const workersOnly = sumRss(workers);

  const stats = {
    alone: percentiles(alone),
    spread: percentiles(spread),
    together: percentiles(together),
  };
  printTable(
    `hover through the gateway, ${fallback ? "the typescript-basic fixture" : corpus}, ${TENANTS} tenants on one runner`,
    ["case", "calls", "p50 ms", "p90 ms", "p50 ratio"],
    [
      { case: "one tenant alone (baseline)", calls: CALLS, "p50 ms": stats.alone.p50, "p90 ms": stats.alone.p90, "p50 ratio": 1 },
      {
        case: `${TENANTS} warm tenants, one call at a time`,
        calls: CALLS,
        "p50 ms": stats.spread.p50,
        "p90 ms": stats.spread.p90,
        "p50 ratio": stats.spread.p50 / stats.alone.p50,
      },
      {
        case: `${TENANTS} warm tenants, all calling at once`,
        calls: CALLS,
        "p50 ms": stats.together.p50,
        "p90 ms": stats.together.p90,
        "p50 ratio": stats.together.p50 / stats.alone.p50,
      },
    ],
  );
  const memory = {
    runnerAloneMiB: runnerAlone / MiB,
    oneWarmTenantMiB: oneWarm / MiB,
    workerProcessMiB: workersOnly / workers.length / MiB,
    allWarmMiB: allWarm / MiB,
    perWarmTenantMiB: (allWarm - runnerAlone) / TENANTS / MiB,
  };
  printTable(
    "resident memory (MiB)",
    ["what", "MiB"],
    [
      { what: "the runner (supervisor), no tenant yet", MiB: memory.runnerAloneMiB },
      { what: "one tenant warm: its worker + language server", MiB: memory.oneWarmTenantMiB },
      { what: "a worker process alone (mean of all)", MiB: memory.workerProcessMiB },
      { what: `everything, ${TENANTS} tenants warm`, MiB: memory.allWarmMiB },
      { what: "per warm tenant", MiB: memory.perWarmTenantMiB },
    ],
    0,
  );
  writeResult("tenantDensity", { corpus: fallback ? "typescript-basic" : corpus, tenants: TENANTS, calls: CALLS, stats, memory });
} finally {
  await close();
}
