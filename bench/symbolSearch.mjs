#!/usr/bin/env node
// Cluster-wide symbol search from the symbol index, at scale. In one run, on one machine:
//   - a real nats-server (JetStream), a runner on a volume of generated workspaces for one tenant
//     (default 1 000, realistic TypeScript: 20–80 files, classes, interfaces, functions, consts),
//     plus honojs/hono when --hono DIR names a checkout of it,
//   - index build: hono's alone (time, files, declarations, bytes stored), then every generated
//     workspace (throughput on this machine; size per workspace in the tenant's KV bucket),
//   - search: search_symbols over MCP/HTTP through a gateway reading the indexes from NATS, across
//     every workspace of the tenant: p50 / p99 for a mix of queries (exact, prefix, camel-case, fuzzy),
//   - memory of the search side (the gateway's heap holding the tenant's indexes),
//   - save-to-findable: a file written with a new symbol until search_symbols finds it,
//   - baseline in the same run: workspace_symbols on hono (or one generated workspace) answered by a
//     warm typescript-language-server, the live path search_symbols used before the index.
// Prints a table and writes bench/results/symbolSearch-<date>.json.
// Usage: node --expose-gc bench/symbolSearch.mjs [--workspaces 1000] [--hono DIR] [--searches 200]
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { NatsSymbolIndexStore, symbolIndexBucket } from "@lspmesh/events";
import {
  ApiKeyStore,
  BearerAuthenticator,
  parseTenantsFile,
  StaticRunnerRouter,
  sha256Hex,
  silentLogger,
  startGateway,
  TenantWorkspaceResolver,
} from "@lspmesh/gateway";
import { createClient } from "@lspmesh/grpc";
import { NatsEventBus, startRunner } from "@lspmesh/lsp-runner";
import { Runner } from "@lspmesh/proto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";

const { values } = parseArgs({
  options: {
    workspaces: { type: "string", default: "1000" },
    hono: { type: "string" },
    searches: { type: "string", default: "200" },
    saves: { type: "string", default: "20" },
  },
});
const WORKSPACES = Number(values.workspaces);
const SEARCHES = Number(values.searches);
const SAVES = Number(values.saves);
const TENANT = "bench";
const TOKEN = "bench-token-0123456789";

// ---------------------------------------------------------------------------------------------
// Generated workspaces: deterministic (seeded), sizes and names like application code.

function random(seed) {
  let state = Math.imul(seed, 2654435761) >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  for (let i = 0; i < 8; i++) next(); // small seeds start with small numbers
  return next;
}
const NOUNS =
  "User Order Invoice Payment Cart Product Session Token Route Config Cache Queue Event Report Account Widget Message Channel Policy Tenant".split(
    " ",
  );
const VERBS = "get set create update delete load save parse render validate format build resolve fetch compute".split(
  " ",
);

function generateWorkspace(dir, seed) {
  const next = random(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const files = 20 + Math.floor(next() * 61);
  writeFileSync(join(dir, "tsconfig.json"), '{ "compilerOptions": { "strict": true }, "include": ["src"] }\n');
  for (let f = 0; f < files; f++) {
    const noun = `${pick(NOUNS)}${pick(NOUNS)}${f}`;
    const folder = join(dir, "src", pick(["", "services", "models", "utils", "api/handlers"]));
    mkdirSync(folder, { recursive: true });
    const lines = [
      `import type { Context } from "./context";`,
      "",
      `export interface ${noun}Options {`,
      "  id: string;",
      "  limit?: number;",
      "}",
      "",
      `export class ${noun}Service {`,
      `  private readonly cache = new Map<string, ${noun}Options>();`,
      "",
    ];
    for (let m = 0; m < 4 + Math.floor(next() * 6); m++) {
      lines.push(
        `  ${pick(VERBS)}${noun}${m}(options: ${noun}Options): number {`,
        "    return options.limit ?? 0;",
        "  }",
        "",
      );
    }
    lines.push("}", "");
    for (let fn = 0; fn < 2 + Math.floor(next() * 5); fn++) {
      const exported = next() < 0.7 ? "export " : "";
      lines.push(
        `${exported}function ${pick(VERBS)}${noun}${fn}(context: Context): string {`,
        "  return String(context);",
        "}",
        "",
      );
    }
    lines.push(
      `export const ${noun.toUpperCase()}_LIMIT = ${Math.floor(next() * 100)};`,
      `export type ${noun}Id = string;`,
    );
    writeFileSync(join(folder, `${noun.charAt(0).toLowerCase()}${noun.slice(1)}.ts`), `${lines.join("\n")}\n`);
  }
}

// ---------------------------------------------------------------------------------------------

const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const sleep = (delay) => new Promise((resolve) => setTimeout(resolve, delay));

async function until(read, accept, what, timeoutMs = 30 * 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(20);
  }
}

const root = mkdtempSync(join(tmpdir(), "lspmesh-bench-symbols-"));
const volume = join(root, "workspaces");
const names = Array.from({ length: WORKSPACES }, (_, index) => `ws-${String(index).padStart(4, "0")}`);
console.log(`generating ${WORKSPACES} workspaces…`);
for (const [index, name] of names.entries()) {
  const dir = join(volume, TENANT, name);
  mkdirSync(dir, { recursive: true });
  generateWorkspace(dir, index + 1);
}
if (values.hono) {
  cpSync(values.hono, join(volume, TENANT, "hono"), {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|\.git)$/.test(source),
  });
}
const all = values.hono ? ["hono", ...names] : names;

/** A nats-server with JetStream on a free loopback port, its store in the run's folder. */
async function startNats() {
  const probe = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => probe.once("listening", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  const binary =
    ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].find(existsSync) ?? "nats-server";
  const child = spawn(binary, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", join(root, "nats")], {
    stdio: "ignore",
  });
  const url = `nats://127.0.0.1:${port}`;
  await until(
    () =>
      connect({ servers: url }).then(
        (nc) => nc.close().then(() => true),
        () => false,
      ),
    Boolean,
    "nats-server to listen",
    10_000,
  );
  return { url, stop: () => child.kill("SIGTERM") };
}

const nats = await startNats();
const nc = await connect({ servers: nats.url });
const store = new NatsSymbolIndexStore(nc);
const bus = await NatsEventBus.connect({ servers: nats.url, name: "bench-runner" });
const runner = await startRunner(
  { listen: "127.0.0.1:0", workspaces: { root: volume }, runnerId: "bench-runner" },
  { events: bus },
);
const runnerClient = createClient(Runner, runner.address);
const results = {
  workspaces: WORKSPACES,
  hono: Boolean(values.hono),
  machine: { cpus: (await import("node:os")).cpus().length },
};

/** Index metas of the tenant as stored, followed live. */
const metas = new Map();
const follower = await until(
  () => store.follow(TENANT, (update) => update.type === "meta" && metas.set(update.meta.workspace, update.meta)),
  Boolean,
  "the tenant's bucket",
  1000,
).catch(() => undefined);

async function buildIndex(workspaces) {
  const start = process.hrtime.bigint();
  // Any request naming a workspace starts its index (here: workspace_status, which starts no server).
  for (const workspace of workspaces) await runnerClient.workspaceStatus({ workspace: { tenant: TENANT, workspace } });
  let follow = follower;
  follow ??= await until(
    () => store.follow(TENANT, (update) => update.type === "meta" && metas.set(update.meta.workspace, update.meta)),
    Boolean,
    "the tenant's bucket",
  );
  await until(
    () => workspaces.every((workspace) => metas.get(workspace)?.state === "ready"),
    Boolean,
    "the indexes to be built",
  );
  return { ms: ms(start), follow };
}

const kv = async () => new Kvm(nc).open(symbolIndexBucket(TENANT));
if (values.hono) {
  const { ms: honoMs } = await buildIndex(["hono"]);
  const meta = metas.get("hono");
  results.honoBuild = {
    ms: honoMs,
    files: meta.files,
    symbols: meta.symbols,
    bytes: (await (await kv()).status()).size,
  };
}
console.log(`indexing ${WORKSPACES} generated workspaces…`);
const bytesBefore = values.hono ? results.honoBuild.bytes : 0;
const built = await buildIndex(names);
const bucketBytes = (await (await kv()).status()).size;
const generated = names.map((name) => metas.get(name));
results.generatedBuild = {
  totalMs: built.ms,
  msPerWorkspace: built.ms / WORKSPACES,
  filesPerWorkspace: generated.reduce((sum, meta) => sum + meta.files, 0) / WORKSPACES,
  symbolsPerWorkspace: generated.reduce((sum, meta) => sum + meta.symbols, 0) / WORKSPACES,
  bytesPerWorkspace: (bucketBytes - bytesBefore) / WORKSPACES,
};

// ---------------------------------------------------------------------------------------------
// The search side: a gateway reading the tenant's indexes from NATS.

const tenants = parseTenantsFile(
  { tenants: { [TENANT]: { workspaces: all, limits: { callsPerSecond: 1_000_000, concurrentCalls: 1000 } } } },
  "bench tenants",
);
const gateway = await startGateway({
  host: "127.0.0.1",
  port: 0,
  router: new StaticRunnerRouter(runner.address),
  workspaces: new TenantWorkspaceResolver(tenants),
  authenticator: new BearerAuthenticator({
    apiKeys: new ApiKeyStore([{ id: "bench", sha256: sha256Hex(TOKEN), tenant: TENANT, scopes: ["lsp:read"] }]),
  }),
  logger: silentLogger,
  symbolIndex: new NatsSymbolIndexStore(nc),
});
const mcp = new Client({ name: "lspmesh-bench", version: "1.0.0" });
await mcp.connect(
  new StreamableHTTPClientTransport(new URL(gateway.url), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  }),
);
const search = async (args) => (await mcp.callTool({ name: "search_symbols", arguments: args })).structuredContent;

globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const loadStart = process.hrtime.bigint();
const first = await search({ query: "UserService", limit: 10 });
results.firstSearchMs = ms(loadStart); // loads the tenant's indexes from NATS
globalThis.gc?.();
results.searchSideHeapBytes = process.memoryUsage().heapUsed - heapBefore;
if (first.partial) throw new Error(`the search is not complete: ${JSON.stringify(first.workspaces.slice(0, 3))}`);

const QUERIES = [
  "UserService",
  "getOrder",
  "PaymentCart",
  "uSS",
  "CfgTok",
  "parseInvoice",
  "ROUTE",
  "compose",
  "toSSG",
  "Hono",
  "validateUserUser3",
  "SessionQueue",
];
const samples = [];
let totals = 0;
for (let i = 0; i < SEARCHES; i++) {
  const start = process.hrtime.bigint();
  const answer = await search({ query: QUERIES[i % QUERIES.length], limit: 20 });
  samples.push(ms(start));
  totals += answer.total;
}
samples.sort((a, b) => a - b);
results.search = {
  workspacesSearched: all.length,
  symbolsSearched: [...metas.values()].reduce((sum, meta) => sum + meta.symbols, 0),
  searches: SEARCHES,
  p50Ms: percentile(samples, 0.5),
  p99Ms: percentile(samples, 0.99),
  meanMatches: totals / SEARCHES,
};

// Save to findable: a new file with a new symbol, until search_symbols finds it.
const saves = [];
for (let i = 0; i < SAVES; i++) {
  const workspace = names[(i * 37) % names.length];
  const symbol = `FreshlySaved${i}Marker`;
  const start = process.hrtime.bigint();
  writeFileSync(join(volume, TENANT, workspace, "src", `fresh${i}.ts`), `export class ${symbol} {}\n`);
  await until(
    () => search({ query: symbol, limit: 1, workspaces: [workspace] }),
    (answer) => answer.symbols[0]?.name === symbol,
    `${symbol} to be findable`,
    60_000,
  );
  saves.push(ms(start));
}
saves.sort((a, b) => a - b);
results.saveToFindable = { saves: SAVES, p50Ms: percentile(saves, 0.5), maxMs: saves.at(-1) };

// Baseline: one warm language server's workspace/symbol on one workspace (the live path).
const baselineWorkspace = values.hono ? "hono" : names[0];
const live = async () =>
  (
    await mcp.callTool({
      name: "workspace_symbols",
      arguments: { workspace: baselineWorkspace, query: "compose", limit: 20 },
    })
  ).structuredContent;
await until(live, (answer) => answer?.state === "ready" && !answer.partial, "a warm language server", 120_000);
const liveSamples = [];
for (let i = 0; i < 50; i++) {
  const start = process.hrtime.bigint();
  await live();
  liveSamples.push(ms(start));
}
liveSamples.sort((a, b) => a - b);
results.baseline = {
  what: `workspace_symbols on ${baselineWorkspace} from a warm typescript-language-server`,
  p50Ms: percentile(liveSamples, 0.5),
  p99Ms: percentile(liveSamples, 0.99),
};

// ---------------------------------------------------------------------------------------------

const row = (label, value) => console.log(`${label.padEnd(58)} ${value}`);
const f = (value, digits = 1) => value.toFixed(digits);
console.log("");
if (results.honoBuild) {
  row(
    "hono: index build",
    `${f(results.honoBuild.ms, 0)} ms, ${results.honoBuild.files} files, ${results.honoBuild.symbols} declarations, ${f(results.honoBuild.bytes / 1024, 0)} KiB`,
  );
}
row(
  `generated: index build (${WORKSPACES} workspaces, one runner)`,
  `${f(built.ms / 1000)} s total, ${f(results.generatedBuild.msPerWorkspace)} ms per workspace`,
);
row(
  "generated: per workspace",
  `${f(results.generatedBuild.filesPerWorkspace)} files, ${f(results.generatedBuild.symbolsPerWorkspace, 0)} declarations, ${f(results.generatedBuild.bytesPerWorkspace / 1024)} KiB stored`,
);
row(
  `search_symbols across ${all.length} workspaces (${results.search.symbolsSearched} declarations)`,
  `p50 ${f(results.search.p50Ms, 2)} ms, p99 ${f(results.search.p99Ms, 2)} ms (goal p50 ≤ 50 ms)`,
);
row("first search (loads the tenant's indexes from NATS)", `${f(results.firstSearchMs, 0)} ms`);
row("search side memory (gateway heap for the tenant's indexes)", `${f(results.searchSideHeapBytes / 1048576)} MiB`);
row(
  "save to findable",
  `p50 ${f(results.saveToFindable.p50Ms, 0)} ms, max ${f(results.saveToFindable.maxMs, 0)} ms (goal ≤ 2 000 ms)`,
);
row(
  `baseline: ${results.baseline.what}`,
  `p50 ${f(results.baseline.p50Ms, 2)} ms, p99 ${f(results.baseline.p99Ms, 2)} ms`,
);
row(
  "ratio: index search over all / live search of one workspace (p50)",
  `×${f(results.search.p50Ms / results.baseline.p50Ms, 2)}`,
);

const resultsDir = new URL("./results/", import.meta.url);
mkdirSync(resultsDir, { recursive: true });
const file = new URL(`symbolSearch-${new Date().toISOString().replace(/[:.]/g, "-")}.json`, resultsDir);
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nwritten to ${file.pathname}`);

await mcp.close();
await gateway.close();
built.follow?.close();
runnerClient.close();
await runner.close();
await bus.close();
await nc.close();
nats.stop();
rmSync(root, { recursive: true, force: true });
