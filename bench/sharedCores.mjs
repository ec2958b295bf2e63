#!/usr/bin/env node
// What a busy neighbour costs the language server on this machine, with no lspmesh at all: the
// direct typescript-language-server asked by 8 callers (as in concurrency.mjs), alone and beside a
// process that keeps a given share of one core busy (--loads, fractions of a core: it spins for
// that share of every --period-ms and sleeps the rest; short periods wake it often, as handling
// requests does), in interleaved rounds. Also how much a spinning loop slows while another core is
// busy too (on a machine whose two cores are hyperthreads of one physical core, a lot).
// concurrency.mjs reports lspmesh's own CPU per call (clients beyond the direct client's, gateway,
// runner, workers); times the calls per second, that is the share of a core lspmesh keeps busy
// beside the server, which --loads stands in for here.
// Usage: npx node bench/sharedCores.mjs [DIR] [--loads 0.4,0.6] [--period-ms 10] [--duration-s 30]
//          [--rounds 3] [--operations find_definition,find_references,hover] [--callers 8]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { parseArgs } from "node:util";
import { startDirectServer } from "./lib/directServer.mjs";
import { processCpuMs as cpuMs } from "./lib/processCpu.mjs";
import { callOrder, goldenQueries, wholeCycles } from "./lib/queries.mjs";
import { elapsedMs, printTable, writeResult } from "./lib/stats.mjs";
import { corpusFolder, directPath } from "./overhead.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    loads: { type: "string", default: "0.4,0.6" },
    "duration-s": { type: "string", default: "30" },
    rounds: { type: "string", default: "3" },
    operations: { type: "string", default: "find_definition,find_references,hover" },
    callers: { type: "string", default: "8" },
    "period-ms": { type: "string", default: "10" },
  },
});
const LOADS = [0, ...values.loads.split(",").map(Number)];
const ROUNDS = Number(values.rounds);
const ROUND_MS = (Number(values["duration-s"]) * 1000) / ROUNDS;
const CALLERS = Number(values.callers);
/** The neighbour's cycle of spinning and sleeping, ms: short cycles wake it often, as request handling does. */
const PERIOD_MS = Number(values["period-ms"]);
const OPERATIONS = values.operations.split(",");
const folder = corpusFolder(positionals[0]);
const queries = goldenQueries(folder, { count: 40 });

/** Every (query, operation) pair once per cycle, shuffled; callers take whole cycles (as concurrency.mjs). */
const ORDER = callOrder(queries.length * OPERATIONS.length, 1);

async function load(path, durationMs) {
  const pairs = wholeCycles(ORDER, durationMs);
  const start = process.hrtime.bigint();
  let calls = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      for (let pair = pairs.next(); pair !== undefined; pair = pairs.next()) {
        await path.call(OPERATIONS[Math.floor(pair / queries.length)], queries[pair % queries.length]);
        calls++;
      }
    }),
  );
  return calls / (elapsedMs(start) / 1000);
}

/** A process keeping `share` of one core busy until killed. */
function startNeighbour(share) {
  const [on, off] = [share * PERIOD_MS, (1 - share) * PERIOD_MS];
  const source = `const cell=new Int32Array(new SharedArrayBuffer(4));for(;;){const t=performance.now();while(performance.now()-t<${on});Atomics.wait(cell,0,0,${off});}`;
  return spawn(process.execPath, ["-e", source], { stdio: "ignore" });
}

/** ms a fixed spinning loop takes on this thread, with `busyOthers` other spinning processes beside it. */
async function spinMs(busyOthers) {
  const others = Array.from({ length: busyOthers }, () => startNeighbour(1));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const start = process.hrtime.bigint();
  let x = 0;
  for (let i = 0; i < 2e8; i++) x = (x * 31 + i) | 0;
  const ms = elapsedMs(start) + (x === 0.5 ? 1 : 0);
  for (const other of others) other.kill("SIGKILL");
  await Promise.all(others.map((other) => once(other, "exit")));
  return ms;
}

const direct = await startDirectServer(folder);
try {
  await direct.waitUntilReady(queries[0]);
  const path = directPath(direct, folder);
  for (let pass = 0; pass < 2; pass++)
    for (const query of queries) for (const operation of OPERATIONS) await path.call(operation, query);
  const spins = [];
  for (let round = 0; round < 3; round++) spins.push({ alone: await spinMs(0), besideBusy: await spinMs(1) });

  const rates = new Map(LOADS.map((share) => [share, []]));
  const neighbourCpu = new Map(LOADS.map((share) => [share, []]));
  for (let round = 0; round < ROUNDS; round++)
    for (let i = 0; i < LOADS.length; i++) {
      const share = LOADS[(round + i) % LOADS.length];
      const neighbour = share > 0 ? startNeighbour(share) : undefined;
      const before = neighbour ? cpuMs(neighbour.pid) : 0;
      const started = Date.now();
      rates.get(share).push(await load(path, ROUND_MS));
      if (neighbour) {
        neighbourCpu.get(share).push((cpuMs(neighbour.pid) - before) / (Date.now() - started));
        neighbour.kill("SIGKILL");
        await once(neighbour, "exit");
      }
    }

  const mean = (list) => list.reduce((sum, value) => sum + value, 0) / list.length;
  const alone = mean(rates.get(0));
  const rows = LOADS.map((share) => ({
    neighbour: share === 0 ? "none" : `${share} of a core`,
    "measured share": share === 0 ? "-" : mean(neighbourCpu.get(share)).toFixed(2),
    "calls/s": mean(rates.get(share)),
    "× alone": mean(rates.get(share)) / alone,
  }));
  printTable(
    `direct typescript-language-server, ${CALLERS} callers, ${OPERATIONS.join(" + ")}, ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s`,
    Object.keys(rows[0]),
    rows,
  );
  const spin = { alone: mean(spins.map((s) => s.alone)), besideBusy: mean(spins.map((s) => s.besideBusy)) };
  console.log(
    `a spinning loop: ${spin.alone.toFixed(0)} ms alone, ${spin.besideBusy.toFixed(0)} ms while another core is busy (${(spin.besideBusy / spin.alone).toFixed(2)}×)`,
  );
  writeResult("sharedCores", {
    corpus: folder,
    callers: CALLERS,
    operations: OPERATIONS,
    periodMs: PERIOD_MS,
    rows,
    spin,
  });
} finally {
  await direct.close();
}
