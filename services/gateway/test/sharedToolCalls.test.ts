// Plain tool calls are answered by one long-lived MCP server shared by every caller: two tenants
// calling at once (their clients number requests alike) each get their own answers only; requests
// the SDK's transport would refuse are still refused by it. Real gateway over HTTP with the
// official MCP client, API keys, and a real gRPC runner whose hover names the tenant it was asked for.
import { ServerState } from "@lspmesh/proto";
import { tenancyConfig } from "@lspmesh/test-kit";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, expect, test } from "vitest";
import { ApiKeyStore } from "../src/auth/apiKeys.js";
import { BearerAuthenticator } from "../src/auth/authenticator.js";
import { startGateway } from "../src/gateway.js";
import { StaticRunnerRouter } from "../src/routing/staticRouter.js";
import { parseTenantsFile, TenantWorkspaceResolver } from "../src/tenancy/tenants.js";
import { serveRunnerOverGrpc } from "./runnerOverGrpc.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const tenancy = tenancyConfig({
  tenants: { acme: { workspaces: ["web"] }, globex: { workspaces: ["shop"] } },
  keys: { acme: { tenant: "acme" }, globex: { tenant: "globex" } },
});
const TOKENS = tenancy.tokens;

async function setup() {
  const runner = await serveRunnerOverGrpc({
    hover: async (request) => {
      // Answers in a random order, so that answers cannot be matched to requests by timing.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      return {
        status: { state: ServerState.READY, language: "typescript", server: "test" },
        contents: `asked for ${request.workspace?.tenant}/${request.workspace?.workspace} line ${request.at?.target.case === "position" ? request.at.target.value.line : "?"}`,
      };
    },
  });
  cleanups.push(() => runner.close());
  const gateway = await startGateway({
    host: "127.0.0.1",
    port: 0,
    router: new StaticRunnerRouter(runner.address),
    workspaces: new TenantWorkspaceResolver(parseTenantsFile(tenancy.tenants)),
    authenticator: new BearerAuthenticator({ apiKeys: new ApiKeyStore(tenancy.apiKeys.keys) }),
  });
  cleanups.push(() => gateway.close());
  return gateway;
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "shared-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  cleanups.push(() => client.close());
  return client;
}

test("two tenants calling at once each get their own answers", async () => {
  const gateway = await setup();
  const acme = await connect(gateway.url, TOKENS.acme);
  const globex = await connect(gateway.url, TOKENS.globex);
  const ask = (client: Client, line: number) =>
    client.callTool({ name: "hover", arguments: { file: "src/a.ts", line, column: 1 } });
  const lines = Array.from({ length: 40 }, (_, index) => index + 1);
  const [acmeAnswers, globexAnswers] = await Promise.all([
    Promise.all(lines.map((line) => ask(acme, line))),
    Promise.all(lines.map((line) => ask(globex, line))),
  ]);
  for (const [index, line] of lines.entries()) {
    expect(JSON.stringify(acmeAnswers[index]?.content)).toContain(`asked for acme/web line ${line}`);
    expect(JSON.stringify(globexAnswers[index]?.content)).toContain(`asked for globex/shop line ${line}`);
  }
  // A workspace of the other tenant is answered like a missing one, on the shared server too.
  const foreign = await acme.callTool({
    name: "hover",
    arguments: { workspace: "shop", file: "src/a.ts", line: 1, column: 1 },
  });
  expect(foreign.isError).toBe(true);
  expect(JSON.stringify(foreign.content)).toContain("NOT_FOUND");
});

test("requests the SDK's transport refuses are still refused", async () => {
  const gateway = await setup();
  const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hover", arguments: {} } };
  const post = (headers: Record<string, string>) =>
    fetch(gateway.url, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.acme}`, ...headers },
      body: JSON.stringify(call),
    });
  const accepted = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const plain = await post(accepted);
  expect(plain.status).toBe(200);
  expect(await plain.json()).toMatchObject({ id: 1, result: { isError: true } });
  expect((await post({ ...accepted, accept: "application/json" })).status).toBe(406);
  expect((await post({ ...accepted, "content-type": "text/plain" })).status).toBe(415);
  expect((await post({ ...accepted, "mcp-protocol-version": "1999-01-01" })).status).toBe(400);
});
