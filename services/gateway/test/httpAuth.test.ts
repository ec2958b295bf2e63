// The HTTP surface with token authentication, over real HTTP with the official MCP client:
// 401/403 with WWW-Authenticate, RFC 9728 metadata, tenants, limits, readiness and metrics.
// No runner is needed: everything here is answered by the gateway itself.

import { tenancyConfig } from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiKeyStore } from "../src/auth/apiKeys.js";
import { BearerAuthenticator } from "../src/auth/authenticator.js";
import { JwtVerifier } from "../src/auth/jwtVerifier.js";
import { type RunningGateway, startGateway } from "../src/gateway.js";
import { TenantLimiter } from "../src/limits/tenantLimiter.js";
import { StaticRunnerRouter } from "../src/routing/staticRouter.js";
import { parseTenantsFile, TenantWorkspaceResolver } from "../src/tenancy/tenants.js";

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: unknown };

const ISSUER = "https://auth.example.com/";
const AUDIENCE = "http://127.0.0.1/mcp";
const tokens = {
  acmeRead: "acme-read-token",
  acmeWrite: "acme-write-token",
  globex: "globex-token",
  noisy: "noisy-token",
  writeOnly: "write-only",
};

let gateway: RunningGateway;
let jwt: string;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwks = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: "k", alg: "ES256" }] });
  jwt = await new SignJWT({ tenant: "globex", scope: "lsp:read", workspaces: ["shop"] })
    .setProtectedHeader({ alg: "ES256", kid: "k" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject("bot")
    .setExpirationTime("5m")
    .sign(privateKey);
  const tenancy = tenancyConfig({
    tenants: {
      acme: { workspaces: ["web", "api"] },
      globex: { workspaces: ["shop", "internal"] },
      noisy: { workspaces: ["spam"], limits: { callsPerSecond: 2 } },
    },
    keys: {
      "acme-reader": { tenant: "acme", token: tokens.acmeRead },
      "acme-writer": { tenant: "acme", scopes: ["lsp:read", "lsp:write"], token: tokens.acmeWrite },
      globex: { tenant: "globex", token: tokens.globex },
      noisy: { tenant: "noisy", token: tokens.noisy },
      "write-only": { tenant: "acme", scopes: ["lsp:write"], token: tokens.writeOnly },
    },
  });
  const tenants = parseTenantsFile(tenancy.tenants);
  const resolver = new TenantWorkspaceResolver(tenants);
  gateway = await startGateway({
    host: "127.0.0.1",
    port: 0,
    // Nothing listens there: these tests never reach a runner.
    router: new StaticRunnerRouter("127.0.0.1:1"),
    workspaces: resolver,
    limiter: new TenantLimiter((tenant) => resolver.limitsOf(tenant)),
    authenticator: new BearerAuthenticator({
      apiKeys: new ApiKeyStore(tenancy.apiKeys.keys),
      jwt: new JwtVerifier({ jwks, issuer: ISSUER, audience: AUDIENCE }),
    }),
    authorizationServers: [ISSUER],
    metricsListen: "127.0.0.1:0",
    metricsToken: () => METRICS_TOKEN,
  });
});

const METRICS_TOKEN = "metrics-token-0123456789abcdef";

afterAll(async () => {
  await gateway?.close();
});

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
};

function post(body: unknown, token?: string) {
  return fetch(gateway.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

async function connected<T>(token: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: "auth-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

describe("authentication", () => {
  test("no token: 401 pointing at the protected-resource metadata, which names scopes and issuer", async () => {
    const response = await post(initialize);
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${new URL(gateway.url).origin}/.well-known/oauth-protected-resource/mcp`);
    expect(challenge).not.toContain("invalid_token");
    const metadata = await (await fetch(metadataUrl!)).json();
    expect(metadata).toEqual({
      resource: gateway.url,
      authorization_servers: [ISSUER],
      scopes_supported: ["lsp:read", "lsp:write"],
      bearer_methods_supported: ["header"],
      resource_name: "lspmesh",
    });
  });

  test("a wrong token: 401 invalid_token; the token is not echoed", async () => {
    const response = await post(initialize, "wrong-token");
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    expect(await response.text()).not.toContain("wrong-token");
  });

  test("a token without lsp:read: 403 insufficient_scope", async () => {
    const response = await post(initialize, tokens.writeOnly);
    expect(response.status).toBe(403);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer error="insufficient_scope", /);
    expect(challenge).toMatch(
      /, scope="lsp:read", resource_metadata="http:[^"]+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
  });

  test("a write with a read-only token: 403 insufficient_scope asking for lsp:write; a preview is fine", async () => {
    const rename = (apply: boolean) => ({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "rename_symbol", arguments: { file: "src/a.ts", line: 1, column: 1, new_name: "b", apply } },
    });
    const refused = await post(rename(true), tokens.acmeRead);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toMatch(/scope="lsp:read lsp:write"/);
    const preview = await post(rename(false), tokens.acmeRead);
    expect(preview.status).not.toBe(403);
  });
});

describe("tenancy", () => {
  test("workspace_status without a workspace lists only the caller's workspaces (API key and JWT)", async () => {
    const acme = await connected(tokens.acmeRead, (client) =>
      client.callTool({ name: "workspace_status", arguments: {} }),
    );
    expect((acme as ToolResult).structuredContent).toMatchObject({ workspaces: ["api", "web"] });
    const globex = (await connected(jwt, (client) =>
      client.callTool({ name: "workspace_status", arguments: {} }),
    )) as ToolResult;
    // The JWT narrows globex to "shop"; its one workspace's status is asked for too, and the
    // runner being down leaves the list standing, marked partial.
    expect(globex.structuredContent).toMatchObject({
      workspaces: ["shop"],
      partial: true,
      note: expect.stringMatching(/^UNAVAILABLE/),
    });
  });

  test("another tenant's workspace is answered exactly like a missing one", async () => {
    const texts = await connected(tokens.acmeRead, async (client) => {
      const call = async (workspace: string) =>
        (
          (await client.callTool({
            name: "hover",
            arguments: { workspace, file: "src/a.ts", line: 1, column: 1 },
          })) as ToolResult
        ).content[0]?.text ?? "";
      return { foreign: await call("shop"), missing: await call("nope") };
    });
    expect(texts.foreign).toMatch(/^NOT_FOUND: /);
    expect(texts.foreign.replace("shop", "X")).toBe(texts.missing.replace("nope", "X"));
    expect(texts.foreign).not.toContain("globex");
  });
});

test("limits: the noisy tenant is RATE_LIMITED, acme is not", async () => {
  const noisy = await connected(tokens.noisy, async (client) => {
    const results: ToolResult[] = [];
    for (let i = 0; i < 5; i++)
      results.push((await client.callTool({ name: "workspace_status", arguments: {} })) as ToolResult);
    return results;
  });
  expect(noisy.filter((r) => r.isError).map((r) => r.content[0]?.text)).toContainEqual(
    expect.stringMatching(/^RATE_LIMITED: .*retry after/),
  );
  const acme = await connected(tokens.acmeRead, (client) =>
    client.callTool({ name: "workspace_status", arguments: {} }),
  );
  expect((acme as ToolResult).isError).toBeFalsy();
});

test("a flood of HTTP requests beyond 10x the tenant's call rate gets 429 with Retry-After", async () => {
  const ping = { jsonrpc: "2.0", id: 9, method: "ping" };
  const statuses = await Promise.all(Array.from({ length: 40 }, () => post(ping, tokens.noisy).then((r) => r)));
  const limited = statuses.filter((response) => response.status === 429);
  expect(limited.length).toBeGreaterThan(0);
  expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  const acme = await post(ping, tokens.acmeRead);
  expect(acme.status).not.toBe(429);
});

test("probes and metrics: metrics only on their own listener or with the metrics token, never to a tenant", async () => {
  const base = new URL("/", gateway.url);
  expect((await fetch(new URL("/healthz", base))).status).toBe(200);
  expect((await fetch(new URL("/readyz", base))).status).toBe(200);
  for (const authorization of [undefined, `Bearer ${tokens.acmeRead}`, "Bearer wrong"]) {
    const refused = await fetch(new URL("/metrics", base), authorization ? { headers: { authorization } } : {});
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toMatch(/acme|noisy|globex/);
  }
  const withToken = await fetch(new URL("/metrics", base), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(await withToken.text()).toMatch(/lspmesh_tool_calls_total/);
  const metrics = await (await fetch(`http://${gateway.metricsAddress}/metrics`)).text();
  expect(metrics).toMatch(/lspmesh_tool_calls_total\{tool="workspace_status",tenant="acme",outcome="ok"\} \d+/);
  expect(metrics).toMatch(
    /lspmesh_tool_errors_total\{tool="workspace_status",tenant="noisy",code="RATE_LIMITED"\} \d+/,
  );
  expect(metrics).toMatch(/lspmesh_rate_limited_total\{tenant="noisy",reason="rate"\}/);
  expect(metrics).toMatch(/lspmesh_tool_call_duration_seconds_bucket/);
  // The JWT caller's one workspace made the gateway try the (absent) runner: it is set aside now.
  expect(metrics).toMatch(/lspmesh_runner_up\{runner="127.0.0.1:1",address="127.0.0.1:1"\} 0/);
  expect(metrics).toMatch(/lspmesh_runner_calls_total\{runner="127.0.0.1:1",outcome="unavailable"\} [1-9]/);
});
