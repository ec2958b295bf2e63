#!/usr/bin/env node
// Soak: steady mixed load on a loopback cluster (nats-server, one `lspmesh runner`, one
// `lspmesh gateway`) from many MCP clients — reads of every kind, files edited on disk and their
// diagnostics asked for — while the resident memory, open descriptors and process counts of the
// gateway, the runner and the language servers are sampled. Fails (exit 1) when, after the
// warm-up, one of them grows faster than the stated slope, or when calls fail.
//
// usage: npm run soak -- [--minutes 10] [--clients 64] [--sample-seconds 10] [--json FILE]
// Not part of npm test. Figures of a 10-minute run are in docs/reliability.md.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { sha256Hex } from "@lspmesh/gateway";
import {
  descendantPids,
  fixturePath,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  waitFor,
} from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    clients: { type: "string", default: "64" },
    "sample-seconds": { type: "string", default: "10" },
    json: { type: "string" },
  },
});
const MINUTES = Number(values.minutes);
const CLIENTS = Number(values.clients);
const SAMPLE_MS = Number(values["sample-seconds"]) * 1000;
/** Growth allowed after the warm-up (the first fifth of the run), per minute. */
const MAX_SLOPE = { rssMb: 2, fds: 1, processes: 0.1 };
const TOKEN = "soak-token-0123456789";
const WORKSPACES = ["web", "api"];

/** Resident memory (MB) and open descriptors of one process; zeros once it is gone. */
function usage(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { rssMb: rssKb / 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return { rssMb: 0, fds: 0 };
  }
}

/** Least-squares slope of ys over xs. */
function slope(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const root = mkdtempSync(join(tmpdir(), "lspmesh-soak-"));
const workspaces = join(root, "workspaces");
for (const workspace of WORKSPACES) {
  mkdirSync(join(workspaces, "acme"), { recursive: true });
  cpSync(fixturePath("typescript-basic"), join(workspaces, "acme", workspace), { recursive: true });
}
writeFileSync(
  join(root, "keys.json"),
  JSON.stringify({ keys: [{ id: "soak", sha256: sha256Hex(TOKEN), tenant: "acme", scopes: ["lsp:read"] }] }),
);
writeFileSync(
  join(root, "tenants.json"),
  JSON.stringify({
    tenants: { acme: { workspaces: WORKSPACES, limits: { callsPerSecond: 100_000, concurrentCalls: 4 * CLIENTS } } },
  }),
);

const nats = await startNatsServer();
const runner = await startRunnerProcess(workspaces, nats.url, "soak-runner");
const gateway = await startGatewayProcess({
  natsUrl: nats.url,
  apiKeysFile: join(root, "keys.json"),
  tenantsFile: join(root, "tenants.json"),
});
await waitFor("the runner live at the gateway", async () => /lspmesh_runners_live 1/.test(await gateway.metrics()));

const clients = [];
for (let i = 0; i < CLIENTS; i++) {
  const client = new Client({ name: `soak-${i}`, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", gateway.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  clients.push(client);
}

const counts = { calls: 0, errors: 0, edits: 0 };
const errors = new Map();
let running = true;
async function callTool(client, name, args) {
  const result = await client.callTool({ name, arguments: args }).catch((error) => ({
    isError: true,
    content: [{ type: "text", text: `THROWN: ${error.message}` }],
  }));
  counts.calls++;
  if (result.isError) {
    counts.errors++;
    const text = result.content.map((part) => part.text ?? "").join(" ");
    const key = `${name}: ${text.slice(0, 120)}`;
    errors.set(key, (errors.get(key) ?? 0) + 1);
  }
}
async function load(client, index) {
  const workspace = WORKSPACES[index % WORKSPACES.length];
  const own = `src/soak${index}.ts`;
  for (let n = 0; running; n++) {
    const pick = n % 20;
    if (pick < 9) await callTool(client, "hover", { workspace, file: "src/main.ts", symbol: "PoliteGreeter", line: 3 });
    else if (pick < 12)
      await callTool(client, "find_references", { workspace, file: "src/greeter.ts", symbol: "makeGreeting" });
    else if (pick < 14) await callTool(client, "document_symbols", { workspace, file: "src/greeter.ts" });
    else if (pick < 16) await callTool(client, "workspace_symbols", { workspace, query: "Greet" });
    else if (pick < 17) await callTool(client, "completions", { workspace, file: "src/main.ts", line: 5, column: 9 });
    else {
      // An edit on disk (alternately broken and fixed), then its diagnostics.
      writeFileSync(
        join(workspaces, "acme", workspace, own),
        n % 40 < 20 ? `export const v${index}: number = ${n};\n` : `export const v${index}: number = "${n}";\n`,
      );
      counts.edits++;
      await callTool(client, "diagnostics", { workspace, files: [own], wait_ms: 3000 });
    }
  }
}

const started = Date.now();
const samples = [];
const sample = () => {
  const servers = descendantPids(runner.pid);
  const serverUsage = servers.map(usage);
  const row = {
    minute: (Date.now() - started) / 60_000,
    calls: counts.calls,
    errors: counts.errors,
    gateway: usage(gateway.pid),
    runner: usage(runner.pid),
    servers: {
      rssMb: serverUsage.reduce((sum, u) => sum + u.rssMb, 0),
      fds: serverUsage.reduce((sum, u) => sum + u.fds, 0),
      processes: servers.length,
    },
  };
  samples.push(row);
  console.log(
    `${row.minute.toFixed(1).padStart(5)} min  calls ${String(row.calls).padStart(8)}  errors ${String(row.errors).padStart(5)}  ` +
      `gateway ${row.gateway.rssMb.toFixed(0).padStart(4)} MB ${String(row.gateway.fds).padStart(4)} fds  ` +
      `runner ${row.runner.rssMb.toFixed(0).padStart(4)} MB ${String(row.runner.fds).padStart(4)} fds  ` +
      `servers ${row.servers.rssMb.toFixed(0).padStart(5)} MB ${String(row.servers.fds).padStart(4)} fds ${row.servers.processes} processes`,
  );
};
console.log(`soak: ${CLIENTS} clients for ${MINUTES} min, sampling every ${SAMPLE_MS / 1000} s`);
const loops = clients.map(load);
sample();
const timer = setInterval(sample, SAMPLE_MS);
await new Promise((resolve) => setTimeout(resolve, MINUTES * 60_000));
clearInterval(timer);
sample();
running = false;
await Promise.all(loops);
await Promise.all(clients.map((client) => client.close().catch(() => {})));
await gateway.stop();
await runner.stop();
await nats.close();
rmSync(root, { recursive: true, force: true });

// Slopes after the warm-up (the first fifth of the run).
const steady = samples.filter((row) => row.minute >= MINUTES / 5);
const minutes = steady.map((row) => row.minute);
const series = {
  "gateway RSS (MB)": [steady.map((row) => row.gateway.rssMb), MAX_SLOPE.rssMb],
  "gateway fds": [steady.map((row) => row.gateway.fds), MAX_SLOPE.fds],
  "runner RSS (MB)": [steady.map((row) => row.runner.rssMb), MAX_SLOPE.rssMb],
  "runner fds": [steady.map((row) => row.runner.fds), MAX_SLOPE.fds],
  "server processes": [steady.map((row) => row.servers.processes), MAX_SLOPE.processes],
  "server fds": [steady.map((row) => row.servers.fds), MAX_SLOPE.fds],
};
let failed = false;
const slopes = {};
console.log(`\nafter the warm-up (${steady.length} samples):`);
for (const [name, [ys, limit]] of Object.entries(series)) {
  const perMinute = slope(minutes, ys);
  slopes[name] = perMinute;
  const ok = perMinute <= limit;
  failed ||= !ok;
  console.log(
    `  ${name.padEnd(18)} ${perMinute.toFixed(2).padStart(8)} per min (limit ${limit})  ${ok ? "ok" : "GROWING"}`,
  );
}
const last = samples.at(-1);
console.log(
  `  calls ${last.calls} (${(last.calls / (last.minute * 60)).toFixed(0)}/s), errors ${last.errors}, edits ${counts.edits}`,
);
for (const [key, count] of errors) console.log(`    ${count} × ${key}`);
if (last.errors > 0) failed = true;
if (values.json)
  writeFileSync(values.json, `${JSON.stringify({ clients: CLIENTS, minutes: MINUTES, samples, slopes }, null, 2)}\n`);
process.exit(failed ? 1 : 0);
