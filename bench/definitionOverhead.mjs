#!/usr/bin/env node
// What lspmesh adds to a language server's own latency. Measures, in one run on the same fixture:
//   1. baseline: textDocument/definition sent straight to typescript-language-server over stdio
//   2. the runner: Runner.FindDefinition over gRPC (sync check, position conversion, snippets)
//   3. the whole path: MCP tools/call find_definition over HTTP → gateway → gRPC → runner
// and prints median / p95 per path and the ratios to the baseline.
// Usage: node bench/definitionOverhead.mjs [iterations=200]   (after `npm ci`)
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { StaticRunnerRouter, StaticWorkspaceResolver, silentLogger, startGateway } from "@lspmesh/gateway";
import { createClient } from "@lspmesh/grpc";
import { startRunner } from "@lspmesh/lsp-runner";
import { Runner } from "@lspmesh/proto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node.js";

const iterations = Number(process.argv[2] ?? 200);
const require = createRequire(import.meta.url);
const workspace = fileURLToPath(new URL("../test/fixtures/typescript-basic", import.meta.url));
const mainFile = join(workspace, "src/main.ts");
// Line 4 (0-based 3): makeGreeting at code-point column 37 = UTF-16 character 38.
const lspPosition = { line: 3, character: 38 };

async function measure(name, call) {
  for (let i = 0; i < 20; i++) await call(); // warm-up
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await call();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { name, median: at(0.5), p95: at(0.95) };
}

async function direct() {
  const child = spawn(process.execPath, [require.resolve("typescript-language-server/lib/cli.mjs"), "--stdio"], {
    cwd: workspace,
    stdio: ["pipe", "pipe", "ignore"],
  });
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  connection.onRequest(() => null);
  connection.listen();
  const rootUri = pathToFileURL(workspace).href;
  await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri,
    capabilities: {},
    initializationOptions: { tsserver: { path: require.resolve("typescript/lib/tsserver.js") } },
  });
  await connection.sendNotification("initialized", {});
  const uri = pathToFileURL(mainFile).href;
  await connection.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "typescript", version: 1, text: readFileSync(mainFile, "utf8") },
  });
  const result = await measure("typescript-language-server directly (baseline)", () =>
    connection.sendRequest("textDocument/definition", { textDocument: { uri }, position: lspPosition }),
  );
  await connection.sendRequest("shutdown");
  await connection.sendNotification("exit");
  connection.dispose();
  child.kill();
  return result;
}

async function throughLspmesh() {
  const runner = await startRunner({
    listen: "127.0.0.1:0",
    workspaces: { dir: workspace, tenant: "local", workspace: "default" },
  });
  const grpcClient = createClient(Runner, runner.address);
  const request = {
    workspace: { tenant: "local", workspace: "default" },
    at: { file: "src/main.ts", target: { case: "position", value: { line: 4, column: 37 } } },
  };
  const grpc = await measure("runner over gRPC", () => grpcClient.findDefinition(request));
  const gateway = await startGateway({
    host: "127.0.0.1",
    port: 0,
    router: new StaticRunnerRouter(runner.address),
    workspaces: new StaticWorkspaceResolver({ tenant: "local", workspace: "default" }),
    logger: silentLogger,
  });
  const mcp = new Client({ name: "bench", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
  const whole = await measure("MCP → gateway → runner", () =>
    mcp.callTool({ name: "find_definition", arguments: { file: "src/main.ts", line: 4, column: 37 } }),
  );
  await mcp.close();
  await gateway.close();
  grpcClient.close();
  await runner.close();
  return [grpc, whole];
}

const baseline = await direct();
const rows = [baseline, ...(await throughLspmesh())];
console.log(`find definition, ${iterations} iterations after 20 warm-up calls, fixture typescript-basic`);
for (const row of rows) {
  console.log(
    `${row.name.padEnd(48)} median ${row.median.toFixed(2).padStart(7)} ms  p95 ${row.p95.toFixed(2).padStart(7)} ms  ` +
      `(×${(row.median / baseline.median).toFixed(2)} of baseline median)`,
  );
}
