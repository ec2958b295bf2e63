// The admin API over real HTTP against a real nats-server in JWT mode: two `lspmesh gateway`s with
// LSPMESH_CONTROL=nats, one given the NATS admin identity (LSPMESH_ADMIN_NATS_CREDS), one with the
// gateway identity only. An admin key (lspmesh:admin, seeded the way `lspmesh admin keys add`
// does) onboards a tenant through HTTP, and the new key answers a tool call. No runner is needed:
// workspace_status lists a caller's workspaces from the gateway alone.
import { NATS_USERS } from "@lspmesh/events";
import { type GatewayProcess, type NatsServer, startGatewayProcess, startNatsServer, waitFor } from "@lspmesh/test-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { connect as natsConnect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { keyAdd, tenantPut } from "../src/admin/controlPlaneChanges.js";
import { ControlPlaneStore } from "../src/admin/controlPlaneStore.js";
import { sha256Hex } from "../src/auth/apiKeys.js";
import { NoTokenAuthenticator } from "../src/auth/authenticator.js";
import { type RunningGateway, startGateway } from "../src/gateway.js";
import { StaticRunnerRouter } from "../src/routing/staticRouter.js";
import { StaticWorkspaceResolver } from "../src/workspaces.js";

/** How soon a change made through the API must be in force on the gateway, ms. */
const APPLY_WITHIN_MS = 2_000;

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

let nats: NatsServer;
/** Runs with the NATS admin identity: may change the control plane. */
let writer: GatewayProcess;
/** Runs with the gateway identity only: reads the control plane. */
let reader: GatewayProcess;
let adminToken: string;

beforeAll(async () => {
  nats = await startNatsServer({ secured: { mode: "jwt", tenants: [] } });
  // The first admin key, written as `lspmesh admin tenants add ops` and `keys add ops root` do.
  const nc = await natsConnect({ servers: nats.url, ...nats.connectOptions(NATS_USERS.admin) });
  try {
    const store = await ControlPlaneStore.open(nc);
    for (const change of tenantPut(await store.values(), "ops")) await store.put(change.key, change.value!);
    const added = keyAdd(await store.values(), "ops", "root", ["lspmesh:admin"]);
    for (const change of added.changes) await store.put(change.key, change.value!);
    adminToken = added.token;
  } finally {
    await nc.close();
  }
  const adminCreds = nats.env(NATS_USERS.admin).LSPMESH_NATS_CREDS!;
  [writer, reader] = await Promise.all([
    startGatewayProcess({ natsUrl: nats, control: true, env: { LSPMESH_ADMIN_NATS_CREDS: adminCreds } }),
    startGatewayProcess({ natsUrl: nats, control: true }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([writer?.stop(), reader?.stop()]);
  await nats?.close();
}, 30_000);

/** One admin API request: status, body and the WWW-Authenticate header. */
async function api(
  gateway: GatewayProcess,
  method: string,
  path: string,
  options: { token?: string | undefined; body?: unknown; contentType?: string } = {},
) {
  const token = "token" in options ? options.token : adminToken;
  const response = await fetch(new URL(`/admin/v1/${path}`, gateway.url), {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(options.body === undefined ? {} : { "content-type": options.contentType ?? "application/json" }),
    },
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    challenge: response.headers.get("www-authenticate") ?? "",
  };
}

/** One tool call with a token; a refused connection as an error result. */
async function call(gateway: GatewayProcess, token: string, name: string): Promise<ToolResult> {
  const client = new Client({ name: "admin-api-test", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(gateway.url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return (await client.callTool({ name, arguments: {} })) as ToolResult;
  } catch (error) {
    return { isError: true, content: [{ type: "text", text: `refused: ${(error as Error).message}` }] };
  } finally {
    await client.close();
  }
}

/** The HTTP status an MCP initialize with `token` is answered with. */
async function mcpStatus(gateway: GatewayProcess, token: string): Promise<{ status: number; challenge: string }> {
  const response = await fetch(gateway.url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "admin-api-test", version: "1" } },
    }),
  });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get("www-authenticate") ?? "" };
}

const text = (result: ToolResult) => result.content.map((part) => part.text ?? "").join("\n");

describe("the admin API", () => {
  let acmeToken: string;

  test("an admin token onboards a tenant, workspaces and a key over HTTP; the key answers within 2 s", async () => {
    expect(await api(writer, "PUT", "tenants/acme", { body: { limits: { callsPerSecond: 20 } } })).toEqual({
      status: 200,
      body: { changes: ['+ tenants.acme {"limits":{"callsPerSecond":20},"v":1}'] },
      challenge: "",
    });
    expect((await api(writer, "PUT", "tenants/acme/workspaces/web")).status).toBe(200);
    expect(
      (await api(writer, "PUT", "tenants/acme/workspaces/api", { body: { languages: ["typescript"] } })).status,
    ).toBe(200);
    const added = await api(writer, "POST", "tenants/acme/keys", { body: { id: "ci", scopes: ["lsp:read"] } });
    const since = Date.now();
    expect(added).toMatchObject({ status: 201, body: { tenant: "acme", id: "ci", scopes: ["lsp:read"] } });
    expect(JSON.stringify(added.body)).not.toMatch(/[0-9a-f]{64}/);
    acmeToken = String(added.body.token);

    const result = await waitFor(
      "the new key to answer workspace_status",
      async () => {
        const answer = await call(writer, acmeToken, "workspace_status");
        return answer.isError ? undefined : answer;
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    expect(Date.now() - since).toBeLessThan(APPLY_WITHIN_MS);
    expect(text(result)).toContain("Your workspaces (2): api, web");

    // Each key written is one audit line naming the caller; the token is in no log line.
    const audit = writer
      .stderr()
      .split("\n")
      .filter((line) => line.includes('"tool":"admin"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audit.map((line) => line.key)).toEqual([
      "tenants.acme",
      "workspaces.acme.web",
      "workspaces.acme.api",
      "keys.acme.ci",
    ]);
    expect(audit[3]).toMatchObject({ msg: "audit", change: "put", by: "key:ops/root" });
    expect(writer.stderr()).not.toContain(acmeToken);

    expect((await api(writer, "GET", "tenants/acme")).body).toEqual({
      tenant: "acme",
      v: 1,
      limits: { callsPerSecond: 20 },
      workspaces: { api: { v: 1, languages: ["typescript"] }, web: { v: 1 } },
      keys: { ci: { v: 1, scopes: ["lsp:read"] } },
    });
  });

  test("tool tokens get 403 insufficient_scope on the admin API, an admin-only token 403 on tool calls", async () => {
    const refused = await api(writer, "GET", "tenants", { token: acmeToken });
    expect(refused.status).toBe(403);
    expect(refused.challenge).toMatch(/error="insufficient_scope"/);
    expect(refused.challenge).toMatch(/scope="lspmesh:admin"/);
    expect((await api(writer, "GET", "tenants", { token: undefined })).status).toBe(401);
    expect((await api(writer, "GET", "tenants", { token: "not-a-key" })).challenge).toMatch(/invalid_token/);
    expect(await mcpStatus(writer, adminToken)).toEqual({
      status: 403,
      challenge: expect.stringMatching(/error="insufficient_scope".*scope="lsp:read"/),
    });
  });

  test("bad input is 400 (or 415) naming the fix, and nothing is written", async () => {
    const before = (await api(writer, "GET", "tenants")).body;
    const bad = async (method: string, path: string, body?: unknown, contentType?: string) => {
      const answer = await api(writer, method, path, { body, ...(contentType ? { contentType } : {}) });
      return `${answer.status} ${answer.body.error_description}`;
    };
    expect(await bad("PUT", "tenants/acme", "{limits")).toMatch(/^400 the body is not JSON .*send a JSON object/);
    expect(await bad("PUT", "tenants/acme", { limit: { callsPerSecond: 5 } })).toBe(
      "400 unknown field 'limit': a tenant takes limits, workspacePattern",
    );
    expect(await bad("PUT", "tenants/Acme!")).toMatch(/^400 tenant 'Acme!' is not an id: use a-z/);
    expect(await bad("PUT", "tenants/acme", { limits: { callsPerSecond: 0 } })).toMatch(/^400 .*must be a positive/);
    expect(await bad("POST", "tenants/acme/keys", { id: "x", scopes: ["lsp:root"] })).toMatch(
      /^400 .*scopes must be lsp:read and\/or lsp:write/,
    );
    expect(await bad("PUT", "tenants/acme", {}, "text/plain")).toMatch(/^415 .*Content-Type: application\/json/);
    expect(await bad("PUT", "tenants/globex/workspaces/web")).toMatch(/^404 no tenant 'globex'/);
    expect(await bad("POST", "tenants/acme/keys", { id: "ci", scopes: ["lsp:read"] })).toMatch(/^409 .*has a key 'ci'/);
    expect(await bad("DELETE", "tenants/ops")).toMatch(/^409 .*deletes the key you are calling with/);
    // A dry run shows the diff of an apply file and writes nothing.
    const file = {
      tenants: { acme: { workspaces: ["web"], limits: { callsPerSecond: 20 } }, ops: { workspaces: [] } },
      keys: [{ id: "root", tenant: "ops", sha256: sha256Hex(adminToken), scopes: ["lspmesh:admin"] }],
    };
    expect((await api(writer, "POST", "apply?dry_run=true", { body: file })).body).toEqual({
      changes: ["- keys.acme.ci", '~ workspaces.acme.api {"state":"deleted","v":1}'],
      dry_run: true,
    });
    expect((await api(writer, "GET", "tenants")).body).toEqual(before);
  });

  test("a gateway without the admin identity reads, and refuses changes with 503 naming the setting", async () => {
    expect((await api(reader, "GET", "tenants")).body).toEqual({
      tenants: { acme: { v: 1, limits: { callsPerSecond: 20 } }, ops: { v: 1 } },
    });
    const refused = await api(reader, "PUT", "tenants/globex");
    expect(refused.status).toBe(503);
    expect(refused.body.error_description).toMatch(/set LSPMESH_ADMIN_NATS_CREDS/);
    expect((await api(reader, "PUT", "tenants/globex?dry_run=true")).body).toEqual({
      changes: ['+ tenants.globex {"v":1}'],
      dry_run: true,
    });
  });

  test("a key deleted through the API stops working within 2 s", async () => {
    expect((await api(writer, "DELETE", "tenants/acme/keys/ci")).body).toEqual({ changes: ["- keys.acme.ci"] });
    const since = Date.now();
    await waitFor("the deleted key to be refused", async () => (await mcpStatus(writer, acmeToken)).status === 401, {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    expect(Date.now() - since).toBeLessThan(APPLY_WITHIN_MS);
  });
});

describe("a gateway whose tenancy is not the control plane", () => {
  let gateway: RunningGateway | undefined;

  afterAll(async () => {
    await gateway?.close();
  });

  test("answers 404 naming LSPMESH_CONTROL=nats", async () => {
    gateway = await startGateway({
      host: "127.0.0.1",
      port: 0,
      router: new StaticRunnerRouter("127.0.0.1:1"),
      workspaces: new StaticWorkspaceResolver({ tenant: "local", workspace: "default" }),
      authenticator: new NoTokenAuthenticator({ tenant: "local", subject: "local", scopes: ["lsp:read", "lsp:write"] }),
    });
    const response = await fetch(new URL("/admin/v1/tenants", gateway.url));
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error_description: string }).error_description).toMatch(
      /the admin API needs LSPMESH_CONTROL=nats/,
    );
  });
});
