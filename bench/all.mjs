#!/usr/bin/env node
// Every benchmark in turn on one folder (`npm run bench -- /path/to/repository`): each prints its
// table and writes its JSON to bench/results/. Takes as long as the folder needs (about 30 min on a
// 2-core machine for honojs/hono); not part of `npm test`.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const folder = process.argv[2];
const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const runs = [
  ["hops.mjs", folder],
  ["overhead.mjs", folder],
  ["concurrency.mjs", folder],
  ["profile.mjs", folder],
  ["diagnosticsFanout.mjs", folder],
  ["coldStart.mjs", folder],
  ["scale.mjs"],
];
let failed = 0;
for (const [script, ...args] of runs) {
  console.log(`\n=== ${script} ${args.filter(Boolean).join(" ")}`);
  const nodeArgs = script === "scale.mjs" ? ["--expose-gc"] : [];
  const run = spawnSync(process.execPath, [...nodeArgs, here(script), ...args.filter(Boolean)], { stdio: "inherit" });
  if (run.status !== 0) {
    failed++;
    console.error(`${script} failed (exit ${run.status ?? run.signal})`);
  }
}
process.exit(failed > 0 ? 1 : 0);
