#!/usr/bin/env node
// Where a call's time goes, hop by hop. The same golden queries are sent, interleaved round by
// round, through five paths that each add one layer to the one before:
//   1. direct           typescript-language-server over stdio (the baseline)
//   2. runner           the runner's service called in process: paths, stat, document sync,
//                       the server request, position conversion, snippets, proto messages
//   3. runner gRPC      the same over loopback gRPC (serialising, HTTP/2, credentials), one
//                       unary gRPC call per call (createClient)
//      runner stream    the same calls on one long-lived stream of calls (createMultiplexedClient,
//                       lspmesh.v1.RunnerCalls; what the gateway uses by default)
//   4. serve            MCP client → HTTP → gateway → runner in process (`lspmesh serve`)
//   5. gateway gRPC     MCP client → HTTP → gateway → gRPC → runner (gateway and runner apart;
//                       LSPMESH_RUNNER_TRANSPORT=unary)
//      gateway stream   the same, the gateway's runner calls on a stream of calls (the default)
// and, beside them, the MCP floor: the same MCP client and HTTP against a replay server
// (lib/replayMcpServer.mjs) that answers with serve's recorded answers and does nothing else —
// what the client and HTTP cost by themselves, the least any MCP server could take.
// The difference between neighbouring rows is that hop's cost. The runner's answer cache is off
// here (LSPMESH_ANSWER_CACHE=0 equivalent) so that every path asks the server; `overhead.mjs`
// measures with it on.
// Usage: node bench/hops.mjs [folder] [--rounds 20] [--queries 20]   (after `npm ci`; folder
// defaults to a small fixture; give a real repository, e.g. a clone of honojs/hono)
import { parseArgs } from "node:util";
import { silentLogger, startLocalGateway } from "@lspmesh/gateway";
import { callMetadataInterceptor, createClient, createMultiplexedClient, GrpcAuth } from "@lspmesh/grpc";
import { startRunner } from "@lspmesh/lsp-runner";
import { Runner, RunnerCalls } from "@lspmesh/proto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { corpusFolder } from "./lib/cluster.mjs";
import { startDirectServer } from "./lib/directServer.mjs";
import { fileUri, goldenQueries, OPERATIONS } from "./lib/queries.mjs";
import { recordingFetch, startReplayServer } from "./lib/replayMcpServer.mjs";
import { elapsedMs, percentiles, printTable, writeResult } from "./lib/stats.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: "string", default: "20" }, queries: { type: "string", default: "20" } },
});
const folder = corpusFolder(positionals[0]).dir;
const rounds = Number(values.rounds);
const queries = goldenQueries(folder, { count: Number(values.queries) });
const ws = { tenant: "local", workspace: "default" };
const secret = { secret: "bench-secret-0123456789abcdef0123456789" };

/** The runner service's request for a query (1-based line, code-point column). */
const at = (query) => ({
  file: query.file,
  target: { case: "position", value: { line: query.line, column: query.column } },
});
const runnerCalls = {
  find_definition: (client, query) => client.findDefinition({ workspace: ws, at: at(query) }),
  find_references: (client, query) =>
    client.findReferences({ workspace: ws, at: at(query), includeDeclaration: true, limit: 5000 }),
  hover: (client, query) => client.hover({ workspace: ws, at: at(query) }),
};

async function mcpClient(url, fetch) {
  const client = new Client({ name: "lspmesh-bench-hops", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}));
  return client;
}

const closers = [];
try {
  const direct = await startDirectServer(folder);
  closers.push(() => direct.close());
  const runner = await startRunner({
    listen: "127.0.0.1:0",
    grpcAuth: secret,
    workspaces: { dir: folder, ...ws },
    answerCacheEntries: 0,
    symbolIndex: { enabled: false },
  });
  closers.push(() => runner.close());
  const auth = GrpcAuth.from(secret);
  const grpcClient = createClient(Runner, runner.address, auth.channelCredentials(), {}, () => auth.callMetadata());
  closers.push(() => grpcClient.close());
  const streamClient = createMultiplexedClient(
    Runner,
    runner.address,
    auth.channelCredentials(),
    {},
    {
      calls: RunnerCalls,
      interceptors: [callMetadataInterceptor(() => auth.callMetadata())],
    },
  );
  closers.push(() => streamClient.close());
  const gateways = {};
  for (const [name, runnerClient, runnerTransport] of [
    ["serve", runner.inProcessClient],
    ["gateway gRPC", undefined, "unary"],
    ["gateway stream", undefined, "stream"],
  ]) {
    const gateway = await startLocalGateway({
      host: "127.0.0.1",
      port: 0,
      runnerAddress: runner.address,
      runnerAuth: secret,
      ...(runnerClient ? { runnerClient } : {}),
      ...(runnerTransport ? { runnerTransport } : {}),
      workspace: ws.workspace,
      logger: silentLogger,
    });
    closers.push(() => gateway.close());
    const client = await mcpClient(gateway.url);
    closers.push(() => client.close());
    gateways[name] = client;
    if (name === "serve") gateways.url = gateway.url;
  }

  const paths = {
    direct: (operation, query) =>
      direct.request(
        OPERATIONS[operation].lspMethod,
        query.file,
        OPERATIONS[operation].lspParams(fileUri(folder, query.file), query),
      ),
    runner: (operation, query) => runnerCalls[operation](runner.inProcessClient, query),
    "runner gRPC": (operation, query) => runnerCalls[operation](grpcClient, query),
    "runner stream": (operation, query) => runnerCalls[operation](streamClient, query),
    serve: (operation, query) =>
      gateways.serve.callTool({ name: operation, arguments: OPERATIONS[operation].toolArguments(query) }),
    "gateway gRPC": (operation, query) =>
      gateways["gateway gRPC"].callTool({ name: operation, arguments: OPERATIONS[operation].toolArguments(query) }),
    "gateway stream": (operation, query) =>
      gateways["gateway stream"].callTool({ name: operation, arguments: OPERATIONS[operation].toolArguments(query) }),
  };
  const toolCall = (operation, query) => ({ name: operation, arguments: OPERATIONS[operation].toolArguments(query) });

  // Warm-up: every query once through every path (projects loaded, files open, JIT warm); serve's
  // answers are recorded on the way for the replay server.
  process.stdout.write(`warming up on ${queries.length} queries in ${folder}…\n`);
  await direct.waitUntilReady(queries[0]);
  const recorder = recordingFetch();
  const recordingClient = await mcpClient(gateways.url, recorder.fetch);
  closers.push(() => recordingClient.close());
  await recordingClient.listTools();
  for (const query of queries)
    for (const operation of Object.keys(OPERATIONS)) {
      for (const name of Object.keys(paths)) await paths[name](operation, query);
      await recordingClient.callTool(toolCall(operation, query));
    }
  const replay = await startReplayServer(recorder.recordings);
  closers.push(() => replay.close());
  const floorClient = await mcpClient(replay.url);
  closers.push(() => floorClient.close());
  paths["MCP floor"] = (operation, query) => floorClient.callTool(toolCall(operation, query));
  for (const query of queries)
    for (const operation of Object.keys(OPERATIONS)) await paths["MCP floor"](operation, query);
  const names = Object.keys(paths);

  const samples = {};
  for (const operation of Object.keys(OPERATIONS)) for (const name of names) samples[`${operation}/${name}`] = [];
  for (let round = 0; round < rounds; round++) {
    for (const [index, query] of queries.entries()) {
      for (const operation of Object.keys(OPERATIONS)) {
        // Rotate the order so that no path always goes first (or last) after a pause.
        const offset = (round + index) % names.length;
        for (const name of [...names.slice(offset), ...names.slice(0, offset)]) {
          const start = process.hrtime.bigint();
          await paths[name](operation, query);
          samples[`${operation}/${name}`].push(elapsedMs(start));
        }
      }
    }
  }

  // Each path is one hop more than its base: the difference of their medians is that hop's cost.
  const hops = {
    runner: ["direct", "runner: paths, sync, conversion, messages"],
    "runner gRPC": ["runner", "gRPC over loopback"],
    "runner stream": ["runner", "gRPC over loopback, calls on one stream"],
    serve: ["runner", "MCP over HTTP + gateway (in process)"],
    "gateway gRPC": ["runner gRPC", "MCP over HTTP + gateway (gRPC to the runner)"],
    "gateway stream": ["runner stream", "MCP over HTTP + gateway (a stream of calls to the runner)"],
  };
  const rows = [];
  for (const operation of Object.keys(OPERATIONS)) {
    const p50 = (name) => percentiles(samples[`${operation}/${name}`]).p50;
    const base = p50("direct");
    for (const name of names) {
      const figures = percentiles(samples[`${operation}/${name}`]);
      const [from, hop] = hops[name] ?? [];
      rows.push({
        operation,
        path: name,
        p50: figures.p50,
        p90: figures.p90,
        p99: figures.p99,
        "added ms (p50)": figures.p50 - base,
        "× direct": figures.p50 / base,
        hop:
          hop ?? (name === "MCP floor" ? "MCP client + HTTP alone (replayed answers)" : "language server (baseline)"),
        "hop ms (p50)": from ? figures.p50 - p50(from) : figures.p50,
      });
    }
  }
  printTable(
    `per hop, ms (${rounds} rounds × ${queries.length} queries, cache off, interleaved)`,
    ["operation", "path", "p50", "p90", "p99", "added ms (p50)", "× direct", "hop ms (p50)", "hop"],
    rows,
  );
  writeResult("hops", { corpus: folder, rounds, queries: queries.length, answerCache: "off", rows });
} finally {
  for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => {});
}
