// Per-runner gRPC secrets through real processes: the gateway holds a key and sends each runner
// the secret derived from it and the runner's id (LSPMESH_GRPC_PER_RUNNER_SECRETS); the runner
// holds only its own. A call through the gateway is answered; the runner refuses the key itself
// and another runner's secret (services/lsp-runner/test/grpcAuth.test.ts tests the refusals in
// depth).
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, deriveRunnerSecret, GrpcAuth, GrpcStatus, type ServiceError } from "@lspmesh/grpc";
import { Runner } from "@lspmesh/proto";
import {
  fixturePath,
  type GatewayProcess,
  type NatsServer,
  type RunnerProcess,
  startGatewayProcess,
  startNatsServer,
  startRunnerProcess,
  writeTenancyFiles,
} from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";

const KEY = "the-gateways-key-for-this-test-0123";
const RUNNER_ID = "own-secret-0";

let root: string;
let nats: NatsServer;
let runner: RunnerProcess;
let gateway: GatewayProcess;
let token: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lspmesh-grpc-identities-"));
  const workspaces = join(root, "workspaces");
  mkdirSync(join(workspaces, "acme"), { recursive: true });
  cpSync(fixturePath("typescript-basic"), join(workspaces, "acme", "web"), { recursive: true });
  const keyFile = join(root, "gateway-key");
  const runnerSecret = join(root, "runner-secret");
  writeFileSync(keyFile, KEY, { mode: 0o600 });
  writeFileSync(runnerSecret, deriveRunnerSecret(KEY, RUNNER_ID), { mode: 0o600 });
  nats = await startNatsServer();
  runner = await startRunnerProcess(workspaces, nats, RUNNER_ID, { env: { LSPMESH_GRPC_SECRET_FILE: runnerSecret } });
  const tenancy = writeTenancyFiles(root, {
    tenants: { acme: { workspaces: ["web"] } },
    keys: { "acme-agent": { tenant: "acme" } },
  });
  token = tenancy.tokens["acme-agent"];
  gateway = await startGatewayProcess({
    natsUrl: nats,
    ...tenancy,
    env: { LSPMESH_GRPC_SECRET_FILE: keyFile, LSPMESH_GRPC_PER_RUNNER_SECRETS: "1" },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await runner?.stop();
  await nats?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

test("the gateway reaches a runner with the runner's own secret; the key and another runner's secret are refused", async () => {
  const mcp = new Client({ name: "grpc-identities", version: "1.0.0" });
  await mcp.connect(
    new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  try {
    const result = (await mcp.callTool(
      { name: "document_symbols", arguments: { workspace: "web", file: "src/greeter.ts" } },
      { timeout: 60_000 },
    )) as { isError?: boolean; content: Array<{ text?: string }> };
    expect(result.isError ?? false).toBe(false);
    expect(result.content.map((part) => part.text).join("")).toContain("makeGreeting");
  } finally {
    await mcp.close();
  }
  for (const secret of [KEY, deriveRunnerSecret(KEY, "another-runner")]) {
    const auth = GrpcAuth.from({ secret });
    const direct = createClient(Runner, runner.address, undefined, {}, () => auth.callMetadata());
    try {
      const error = await direct.workspaceStatus({ workspace: { tenant: "acme", workspace: "web" } }).then(
        () => undefined,
        (e: ServiceError) => e,
      );
      expect(error?.code).toBe(GrpcStatus.UNAUTHENTICATED);
    } finally {
      direct.close();
    }
  }
});
