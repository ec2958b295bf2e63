// OpenTelemetry tracing across the cluster, every part a real process: nats-server, one `lspmesh
// runner` (tenant workers, as deployed) and one `lspmesh gateway`, both exporting OTLP/HTTP to a
// receiver in this test. One find_definition sent with a W3C traceparent must come back as one
// trace: the gateway's tool span → its gRPC client span → the runner's gRPC server span → the
// language server's request span, all under the caller's trace id.
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  fixturePath,
  type GatewayProcess,
  type NatsServer,
  type OtlpReceiver,
  type ReceivedSpan,
  type RunnerProcess,
  startGatewayProcess,
  startNatsServer,
  startOtlpReceiver,
  startRunnerProcess,
  traceTree,
  waitFor,
  writeTenancyFiles,
} from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, test } from "vitest";

/** OTLP span kinds as exported. */
const SERVER = 2;
const CLIENT = 3;
const RUNNER_CALL = "lspmesh.v1.Runner/FindDefinition";

let root: string;
let receiver: OtlpReceiver;
let nats: NatsServer;
let runner: RunnerProcess;
let gateway: GatewayProcess;
let token: string;
const clients: Client[] = [];

/** A W3C traceparent with fresh ids, as a caller's tracer would send it (sampled). */
function newTraceparent(): { traceparent: string; traceId: string; parentId: string } {
  const traceId = randomBytes(16).toString("hex");
  const parentId = randomBytes(8).toString("hex");
  return { traceparent: `00-${traceId}-${parentId}-01`, traceId, parentId };
}

async function client(headers: Record<string, string> = {}): Promise<Client> {
  const created = new Client({ name: "tracing-test", version: "1.0.0" });
  await created.connect(
    new StreamableHTTPClientTransport(gateway.url, {
      requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
    }),
  );
  clients.push(created);
  return created;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-tracing-"));
  const workspaces = join(root, "workspaces");
  cpSync(fixturePath("typescript-basic"), join(workspaces, "acme", "web"), { recursive: true });
  const tenancy = writeTenancyFiles(root, {
    tenants: { acme: { workspaces: ["web"] } },
    keys: { acme: { tenant: "acme" } },
  });
  token = tenancy.tokens.acme;
  receiver = await startOtlpReceiver();
  // Exported within 100 ms of ending (default 5 s), so the test waits on spans, not on a timer.
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: "100" };
  nats = await startNatsServer({ secured: { tenants: ["acme"] } });
  [runner, gateway] = await Promise.all([
    startRunnerProcess(workspaces, nats, "traced-0", { env: otel }),
    startGatewayProcess({ natsUrl: nats, ...tenancy, env: otel }),
  ]);
  await waitFor("the runner registered", async () => (await gateway.liveRunners()) === 1);
  // The language server started (and the project loaded) by an untraced call on the same file
  // first: the traced ones below are warm. Another position, so no answer is cached for them.
  const warm = await client();
  const warmArguments = { workspace: "web", file: "src/main.ts", symbol: "makeGreeting", line: 4 };
  await warm.callTool({ name: "find_definition", arguments: warmArguments }, undefined, { timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  for (const created of clients) await created.close().catch(() => {});
  await gateway?.stop();
  await runner?.stop();
  await nats?.close();
  await receiver?.close();
  if (root) rmSync(root, { recursive: true, force: true });
}, 60_000);

/** The spans of `traceId` once the chain down to the language server's request has arrived. */
function chainOf(traceId: string): Chain {
  const spans = receiver.spans().filter((span) => span.traceId === traceId);
  const tool = spans.find((span) => span.service === "lspmesh-gateway" && span.name === "tools/call find_definition");
  const grpcClient = spans.find((span) => span.parentSpanId === tool?.spanId && span.name === RUNNER_CALL);
  const grpcServer = spans.find((span) => span.parentSpanId === grpcClient?.spanId && span.name === RUNNER_CALL);
  const lsp = spans.find((span) => span.parentSpanId === grpcServer?.spanId && span.name === "textDocument/definition");
  if (tool && grpcClient && grpcServer && lsp) return { spans, tool, grpcClient, grpcServer, lsp };
  // Thrown, so a timeout says what had arrived.
  throw new Error(`${receiver.spans().length} spans received; of this trace:\n${traceTree(spans)}`);
}

interface Chain {
  spans: ReceivedSpan[];
  tool: ReceivedSpan;
  grpcClient: ReceivedSpan;
  grpcServer: ReceivedSpan;
  lsp: ReceivedSpan;
}

test("a find_definition sent with a traceparent is one trace: gateway tool → gRPC → runner → language server", async () => {
  const { traceparent, traceId, parentId } = newTraceparent();
  const traced = await client({ traceparent });
  const result = await traced.callTool(
    { name: "find_definition", arguments: { workspace: "web", file: "src/main.ts", symbol: "PoliteGreeter", line: 3 } },
    undefined,
    { timeout: 60_000 },
  );
  expect(JSON.stringify(result.content)).toContain("src/greeter.ts:7:14");
  const chain = await waitFor("the trace down to the language server's request", () => chainOf(traceId), {
    timeoutMs: 10_000,
  });
  console.log(`trace ${traceId} (caller's span ${parentId}):\n${traceTree(chain.spans)}`);

  const { tool, grpcClient, grpcServer, lsp } = chain;
  // The caller's span is the tool span's parent; every span is in the caller's trace.
  expect(tool.parentSpanId).toBe(parentId);
  expect(new Set(chain.spans.map((span) => span.traceId))).toEqual(new Set([traceId]));
  expect([tool, grpcClient, grpcServer, lsp].map((span) => [span.service, span.kind])).toEqual([
    ["lspmesh-gateway", SERVER],
    ["lspmesh-gateway", CLIENT],
    ["lspmesh-runner", SERVER],
    ["lspmesh-runner", CLIENT],
  ]);
  expect(tool.attributes).toMatchObject({
    "gen_ai.tool.name": "find_definition",
    "lspmesh.tenant": "acme",
    "lspmesh.workspace": "web",
  });
  expect(grpcClient.attributes).toMatchObject({ "rpc.method": RUNNER_CALL, "rpc.status_code": "OK" });
  expect(lsp.attributes).toMatchObject({ "rpc.method": "textDocument/definition", "lsp.language": "typescript" });
  // Children start after and end before their parents, within 1 ms: the spans come from three
  // processes (gateway, runner, tenant worker), each anchoring its span clock once at start, and a
  // server span ends after its answer is written, which the client may read and end on first
  // (a child was seen ending 38 µs after its parent).
  const SKEW_NS = 1_000_000n;
  for (const [parent, child] of [
    [tool, grpcClient],
    [grpcClient, grpcServer],
    [grpcServer, lsp],
  ] as const) {
    expect(child.startNs + SKEW_NS).toBeGreaterThanOrEqual(parent.startNs);
    expect(child.endNs).toBeLessThanOrEqual(parent.endNs + SKEW_NS);
  }
  // Names and ids only: no argument, path or file content in any attribute.
  const attributes = JSON.stringify(chain.spans.map((span) => span.attributes));
  for (const secret of ["PoliteGreeter", "Good day", "src/main.ts", root]) expect(attributes).not.toContain(secret);
  expect(receiver.failures).toEqual([]);
}, 60_000);

test("a traceparent in the tools/call _meta continues the caller's trace as well", async () => {
  const { traceparent, traceId, parentId } = newTraceparent();
  const plain = await client();
  await plain.callTool(
    {
      name: "find_definition",
      arguments: { workspace: "web", file: "src/main.ts", symbol: "makeGreeting", line: 6 },
      _meta: { traceparent },
    },
    undefined,
    { timeout: 60_000 },
  );
  const chain = await waitFor("the trace of the _meta traceparent", () => chainOf(traceId), { timeoutMs: 10_000 });
  expect(chain.tool.parentSpanId).toBe(parentId);
}, 60_000);
